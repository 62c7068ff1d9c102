package io.acceltriage.incident;

import io.acceltriage.store.Tx;
import io.acceltriage.cluster.Membership;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Live correlation: the {@link Correlator} configured from {@code acceltriage.correlation.*}, reading
 * the live cluster, and filing into the incident store. {@link #about} reads the cluster and must run
 * outside a transaction; {@link #file} runs inside the caller's.
 */
@Singleton
public class Correlation {

    private final Correlator correlator;
    private final IncidentStore incidents;

    Correlation(Membership cluster, IncidentStore incidents, io.acceltriage.store.Database database,
            @ConfigProperty(name = "acceltriage.correlation.storm-threshold", defaultValue = "10") int stormThreshold,
            @ConfigProperty(name = "acceltriage.correlation.storm-window", defaultValue = "60s") Duration stormWindow) {
        this.correlator = new Correlator(new SubjectResolver(cluster), new StoredStorms(database, stormThreshold, stormWindow));
        this.incidents = incidents;
    }

    /** Announces a batch of stored alerts about to be filed (see {@link Correlator#expect}). */
    public void expect(List<StoredAlert> batch) {
        batch.forEach(s -> correlator.expect(s.alert(), s.receivedAt()));
    }

    public About about(Alert alert, Instant at) {
        return correlator.about(alert, at);
    }

    public Correlator.Filing file(Tx tx, Alert alert, About about) {
        return Correlator.file(alert, about, new Correlator.Index() {
            @Override
            public Optional<String> find(Collection<String> keys) {
                return incidents.openHolding(tx, keys);
            }

            @Override
            public Optional<String> holding(String fingerprint) {
                return incidents.openWithAlert(tx, fingerprint);
            }

            @Override
            public Opened open(Subject subject, String node, Collection<String> keys) {
                Opened o = incidents.openOrJoin(tx, subject, node, Instant.now());
                incidents.addKeys(tx, o.id(), keys);
                return o;
            }

            @Override
            public void addKeys(String incidentId, Collection<String> keys) {
                incidents.addKeys(tx, incidentId, keys);
            }

            @Override
            public Subject subjectOf(String incidentId) {
                return incidents.subjectOf(tx, incidentId);
            }

            @Override
            public void resubject(String incidentId, Subject node) {
                incidents.resubject(tx, incidentId, node);
            }
        });
    }
}
