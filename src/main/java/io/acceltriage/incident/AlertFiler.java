package io.acceltriage.incident;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import io.acceltriage.store.StoreException;
import io.acceltriage.store.WorkLock;
import java.util.Set;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Files alerts from the inbox under incidents: each under the open incident it correlates with, or a
 * new one, with the filing audited in the same transaction. Called by the triage worker only.
 */
@ApplicationScoped
public class AlertFiler {

    private static final Logger LOG = Logger.getLogger(AlertFiler.class);

    private final AlertInbox inbox;
    private final IncidentStore incidents;
    private final Database database;
    private final AuditLog audit;
    private final Correlation correlation;

    AlertFiler(AlertInbox inbox, IncidentStore incidents, Database database, AuditLog audit, Correlation correlation) {
        this.inbox = inbox;
        this.incidents = incidents;
        this.database = database;
        this.audit = audit;
        this.correlation = correlation;
    }

    /**
     * Files a chunk; when the store refuses it for what is in it (a value that does not fit, a
     * constraint), files its alerts one by one and sets aside, audited, any the store refuses alone:
     * one alert that can never be filed must not stop every alert behind it. An outage is not that:
     * it propagates, and the chunk stays in the inbox for the next pass. Null ids: set aside, or filed
     * by another replica meanwhile.
     */
    public List<String> file(List<StoredAlert> chunk) {
        try {
            return fileTogether(chunk);
        } catch (StoreException e) {
            if (!refusedForItsContent(e)) throw e;
        }
        List<String> ids = new ArrayList<>(chunk.size());
        for (StoredAlert a : chunk) {
            try {
                ids.add(fileTogether(List.of(a)).get(0));
            } catch (StoreException e) {
                if (!refusedForItsContent(e)) throw e;
                String why = e.getCause().getMessage();
                LOG.errorf("alert %d (%s, fingerprint %s) cannot be filed under an incident and is set aside: %s; it is in the"
                        + " audit log as alert.set-aside", a.id(), a.alert().name(), a.alert().fingerprint(), why);
                database.transaction(tx -> {
                    inbox.setAside(tx, a.id());
                    Map<String, Object> p = new LinkedHashMap<>();
                    p.put("alert", a.id());
                    p.put("alertname", a.alert().name());
                    p.put("fingerprint", a.alert().fingerprint());
                    p.put("reason", "the store refused to file it: " + why);
                    audit.append(tx, null, AuditKind.ALERT_SET_ASIDE, Actors.AGENT, p);
                    return null;
                });
                ids.add(null);
            }
        }
        return ids;
    }

    /** SQL classes 22 (data exception: too long, out of range) and 23 (integrity): the rows, not the store. */
    private static boolean refusedForItsContent(StoreException e) {
        return e.sqlClass().filter(c -> c.equals("22") || c.equals("23")).isPresent();
    }

    /**
     * Files alerts under the open incident each correlates with (same node, pod, workload or gang; a
     * storm's fleet incident), opening one when there is none. The cluster is read before the
     * transaction; one transaction files the whole chunk, so a storm costs a commit per chunk, not per alert.
     *
     * <p>Replicas on one database take turns ({@link WorkLock#FILING}, held until the commit): each
     * sees the incidents the last one opened, so a subject gets one incident however the alerts are
     * spread, and an alert another replica filed meanwhile is skipped, so each is filed once. A firing
     * alert asks for one triage of its incident, in the same transaction ({@link IncidentStore#alertsFiled}).
     */
    private List<String> fileTogether(List<StoredAlert> chunk) {
        List<About> abouts = chunk.stream().map(a -> correlation.about(a.alert(), a.receivedAt())).toList();
        return database.transaction(tx -> {
            WorkLock.hold(tx, WorkLock.FILING);
            Set<Long> waiting = inbox.stillWaiting(tx, chunk.stream().map(StoredAlert::id).toList());
            List<String> ids = new ArrayList<>(chunk.size());
            // The chunk's records are appended together at the end: the audit head's lock (which every appender,
            // the webhook's receipts among them, waits for) is then held for one batch and the commit, not for the
            // whole chunk's correlation. Same records, same order, same transaction.
            List<AuditLog.Entry> records = new ArrayList<>(chunk.size() + 1);
            Map<String, int[]> filed = new LinkedHashMap<>(); // incident → alerts filed, firing among them
            for (int i = 0; i < chunk.size(); i++) {
                StoredAlert stored = chunk.get(i);
                if (!waiting.contains(stored.id())) {
                    ids.add(null);
                    continue;
                }
                About about = abouts.get(i);
                Correlator.Filing filing = correlation.file(tx, stored.alert(), about);
                if (filing.opened()) {
                    Map<String, Object> p = new LinkedHashMap<>();
                    p.put("subject", about.subject().key());
                    p.put("firstAlert", stored.alert().name());
                    p.put("correlationKeys", List.copyOf(about.keys()));
                    records.add(new AuditLog.Entry(filing.incidentId(), AuditKind.INCIDENT_OPENED, Actors.AGENT, p));
                }
                inbox.file(tx, stored.id(), filing.incidentId());
                int[] counts = filed.computeIfAbsent(filing.incidentId(), id -> new int[2]);
                counts[0]++;
                if (stored.alert().status() == AlertStatus.FIRING) counts[1]++;
                records.add(new AuditLog.Entry(filing.incidentId(), AuditKind.ALERT_FILED, Actors.AGENT, Map.of("alertname",
                        stored.alert().name(), "fingerprint", stored.alert().fingerprint(), "status", stored.alert().status().wireName(),
                        "about", about.subject().key())));
                ids.add(filing.incidentId());
            }
            // Each incident's count and wanted triages once for the chunk (a storm's fleet incident: one update, not 50).
            filed.forEach((id, counts) -> incidents.alertsFiled(tx, id, counts[0], counts[1]));
            audit.appendAll(tx, records);
            return ids;
        });
    }
}
