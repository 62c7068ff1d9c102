package io.acceltriage.reliability;

import io.acceltriage.action.Executor;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.evidence.MetricsSource.EvidenceUnavailable;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Measures each incident's service impact once its window after the fault has passed: the leader
 * reads it from Prometheus, stores it in the incident's audit trail ({@code impact.measured}, which
 * the reliability report and the incident page read back, and which makes it once across restarts) and
 * tells people what the fault did. Remembers the incidents it has settled, so a tick reads the trail
 * only of incidents it has not. A Prometheus that does not answer is tried again at the next tick.
 */
@ApplicationScoped
class ImpactWatch {

    private static final Logger LOG = Logger.getLogger(ImpactWatch.class);
    /** Incidents older than this are not measured any more (their series may be gone from Prometheus). */
    static final Duration LOOK_BACK = Duration.ofDays(2);

    private final boolean enabled;
    private final ServiceImpacts impacts;
    private final IncidentStore incidents;
    private final AlertInbox alerts;
    private final AuditReader trail;
    private final AuditLog audit;
    private final Executor executor;
    private final Escalations escalations;
    private final Set<String> settled = ConcurrentHashMap.newKeySet();

    ImpactWatch(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled, ServiceImpacts impacts,
            IncidentStore incidents, AlertInbox alerts, AuditReader trail, AuditLog audit, Executor executor, Escalations escalations) {
        this.enabled = enabled;
        this.impacts = impacts;
        this.incidents = incidents;
        this.alerts = alerts;
        this.trail = trail;
        this.audit = audit;
        this.executor = executor;
        this.escalations = escalations;
    }

    @Scheduled(every = "${acceltriage.impact.check-every:60s}", delayed = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!enabled || !impacts.configured() || !executor.leads()) return;
        try {
            check(Instant.now());
        } catch (RuntimeException e) {
            LOG.warnf("impact watch: %s; tried again at the next tick", e.getMessage());
        }
    }

    /** Measures every incident whose window has passed and that has no impact on record; returns how many it stored. */
    int check(Instant now) {
        int stored = 0;
        List<Incident> recent = incidents.list(new IncidentFilter(null, null, null, null, now.minus(LOOK_BACK), null, Reliability.MAX_INCIDENTS));
        for (Incident i : recent) {
            if (settled.contains(i.id())) continue;
            Instant faultAt = Timings.faultAt(alerts.ofIncident(i.id()));
            if (faultAt != null && now.isBefore(impacts.dueAt(faultAt))) continue;
            if (trail.find(AuditQuery.forIncident(i.id())).stream().anyMatch(r -> r.kind() == AuditKind.IMPACT_MEASURED)) {
                settled.add(i.id());
                continue;
            }
            ServiceImpact impact;
            try {
                impact = impacts.measure(faultAt, ServiceImpacts.namespaces(StoredAssessment.read(i.assessmentJson()), i.node()), now);
            } catch (EvidenceUnavailable e) {
                LOG.warnf("impact of incident %s not read: %s; tried again at the next tick", i.id(), e.getMessage());
                return stored;
            }
            audit.append(i.id(), AuditKind.IMPACT_MEASURED, Actors.AGENT, impact);
            settled.add(i.id());
            stored++;
            if (impact.measured()) {
                escalations.tell(new Notice(i.id(), "service_impact", i.subject().key(), i.family() == null ? "none" : i.family(),
                        i.confidence() == null ? 0 : i.confidence(), "What the fault did to the service: " + impact.summary(), List.of(), null));
            }
        }
        return stored;
    }
}
