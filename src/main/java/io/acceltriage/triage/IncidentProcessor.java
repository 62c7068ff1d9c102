package io.acceltriage.triage;

import io.acceltriage.store.Tx;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.incident.AlertFiler;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.incident.Correlation;
import io.acceltriage.incident.Correlator;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.incident.StoredAlert;
import io.acceltriage.metrics.ServiceMetrics;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.acceltriage.policy.Decision;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Moves alerts from the durable inbox into incidents and triages them: file each alert under the open
 * incident of its subject (or open one), assess, audit every step, carry out what policy allowed,
 * and tell people what they must know. One worker thread, so incidents never race each other; the
 * inbox is the queue, so a crash loses nothing that was acknowledged.
 */
@ApplicationScoped
public class IncidentProcessor {

    private static final Logger LOG = Logger.getLogger(IncidentProcessor.class);
    private static final int BATCH = 500;
    /** Alerts filed per transaction. */
    private static final int FILING_CHUNK = 50;
    /** A TRIAGING incident untouched this long had its triage interrupted. */
    private static final java.time.Duration STUCK_AFTER = java.time.Duration.ofSeconds(30);

    private final AlertInbox inbox;
    private final IncidentStore incidents;
    private final Database database;
    private final AuditLog audit;
    private final Executor executor;
    private final Escalations escalations;
    private final ServiceMetrics metrics;
    private final Correlation correlation;
    private final AlertFiler filer;
    private final FleetResponder fleet;
    private final GpuMemory memory;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "acceltriage-triage");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Failed triages by incident: how often, and not before when the next try. Only the worker thread touches it. */
    private final Map<String, Failures> failing = new java.util.HashMap<>();
    private final java.time.Duration firstBackoff;

    /** A triage that failed {@code attempts} times; tried again at {@code notBefore} at the earliest. */
    private record Failures(int attempts, Instant notBefore) {}

    /**
     * After this many failed triages an incident is escalated to a person, once, instead of being
     * retried for ever: whatever makes it fail (a hostile label, a bug) will not go away by itself.
     */
    static final int MAX_TRIAGE_ATTEMPTS = 3;

    IncidentProcessor(AlertInbox inbox, IncidentStore incidents, Database database, AuditLog audit,
            Executor executor, Escalations escalations, ServiceMetrics metrics, Correlation correlation, FleetResponder fleet,
            AlertFiler filer, ResponderFactory responders,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.triage.retry-backoff", defaultValue = "30s")
            java.time.Duration firstBackoff) {
        this.firstBackoff = firstBackoff;
        this.inbox = inbox;
        this.incidents = incidents;
        this.database = database;
        this.audit = audit;
        this.executor = executor;
        this.escalations = escalations;
        this.metrics = metrics;
        this.correlation = correlation;
        this.filer = filer;
        this.fleet = fleet;
        this.memory = responders.memory();
        metrics.inboxBacklog(inbox::pending);
    }

    /** Finishes actions a crash interrupted, then drains the inbox. */
    void recover() {
        for (ActionRecord r : executor.interrupted()) {
            LOG.infof("finishing interrupted action %s %s %s", r.id(), r.kind().wireName(), r.target());
            worker.submit(() -> executor.resume(r));
        }
        wake();
    }

    /** Asks the worker to drain the inbox; calls while a drain is pending coalesce into it. */
    public void wake() {
        if (scheduled.compareAndSet(false, true)) {
            worker.submit(() -> {
                scheduled.set(false);
                try {
                    drain();
                } catch (RuntimeException e) {
                    LOG.errorf(e, "triage pass failed; the alerts stay in the inbox and are retried");
                }
            });
        }
    }

    void drain() {
        retriageInterrupted();
        while (true) {
            List<StoredAlert> batch = inbox.unprocessed(BATCH);
            if (batch.isEmpty()) {
                return;
            }
            Set<String> toTriage = new LinkedHashSet<>();
            Set<String> touched = new LinkedHashSet<>();
            correlation.expect(batch);
            for (int from = 0; from < batch.size(); from += FILING_CHUNK) {
                List<StoredAlert> chunk = batch.subList(from, Math.min(batch.size(), from + FILING_CHUNK));
                List<String> ids = filer.file(chunk);
                for (int i = 0; i < chunk.size(); i++) {
                    if (ids.get(i) == null) continue;
                    touched.add(ids.get(i));
                    if (chunk.get(i).alert().status() == AlertStatus.FIRING) {
                        toTriage.add(ids.get(i));
                    }
                }
            }
            for (String id : toTriage) {
                // A fleet incident is triaged once: its members are sampled, later storm alerts only add to its count.
                incidents.find(id).filter(i -> i.state().open())
                        .filter(i -> !Correlator.isFleet(i.subject()) || i.assessmentJson() == null).ifPresent(this::triageSafely);
            }
            touched.forEach(this::resolveIfAllResolved);
        }
    }

    /**
     * An incident whose alerts were filed but whose triage never finished (a crash, an exception) is
     * triaged again: its alerts are already out of the inbox, so nothing else would pick it up.
     */
    private void retriageInterrupted() {
        Instant before = Instant.now().minus(STUCK_AFTER);
        for (Incident i : incidents.list(new IncidentFilter(IncidentState.TRIAGING, null, null, null, null, null, 50))) {
            Failures f = failing.get(i.id());
            if (f != null ? Instant.now().isAfter(f.notBefore()) : i.updatedAt().isBefore(before)) {
                LOG.infof("triaging %s again: its last triage did not finish", i.id());
                triageSafely(i);
            }
        }
    }

    private void triageSafely(Incident incident) {
        try {
            triage(incident);
            failing.remove(incident.id());
        } catch (RuntimeException e) {
            failed(incident, e);
        }
    }

    /**
     * The incident stays TRIAGING and is retried by retriageInterrupted after a doubling pause; the
     * alerts are safe in the store. The last allowed failure escalates it, which ends the retries.
     */
    private void failed(Incident incident, RuntimeException e) {
        Failures before = failing.get(incident.id());
        int attempts = before == null ? 1 : before.attempts() + 1;
        if (attempts < MAX_TRIAGE_ATTEMPTS) {
            java.time.Duration pause = firstBackoff.multipliedBy(1L << (attempts - 1));
            failing.put(incident.id(), new Failures(attempts, Instant.now().plus(pause)));
            LOG.errorf(e, "triage of %s failed (attempt %d of %d); trying again in %s", incident.id(), attempts, MAX_TRIAGE_ATTEMPTS, pause);
            return;
        }
        failing.remove(incident.id());
        LOG.errorf(e, "triage of %s failed %d times; escalating it to a person", incident.id(), attempts);
        String why = "triage failed " + attempts + " times (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + abbreviate(e.getMessage())) + "); a person must look at it";
        try {
            database.transaction(tx -> {
                incidents.setState(tx, incident.id(), IncidentState.ESCALATED);
                return null;
            });
            escalations.tell(new Notice(incident.id(), IncidentState.ESCALATED.name().toLowerCase(), incident.subject().key(),
                    incident.family() == null ? "none" : incident.family(), incident.confidence() == null ? 0 : incident.confidence(),
                    "Triage of " + incident.subject().key() + " keeps failing.", List.of(why), "/incidents/" + incident.id()));
        } catch (RuntimeException again) {
            // The store is down too: count this attempt again, so the escalation is tried at the next pass.
            failing.put(incident.id(), new Failures(attempts - 1, Instant.now().plus(firstBackoff)));
            LOG.errorf(again, "could not escalate %s; trying again later", incident.id());
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    private void triage(Incident incident) {
        long began = System.nanoTime();
        List<StoredAlert> alerts = inbox.ofIncident(incident.id());
        Assessment a = fleet.assess(incident.subject(), alerts.stream().map(StoredAlert::alert)
                .filter(x -> x.status() == AlertStatus.FIRING).toList());
        database.transaction(tx -> {
            audit.append(tx, incident.id(), AuditKind.EVIDENCE_COLLECTED, Actors.AGENT, evidencePayload(a));
            audit.append(tx, incident.id(), AuditKind.DIAGNOSIS, Actors.AGENT, a.diagnosis());
            if (a.model() != null) io.acceltriage.agent.llm.ModelAudit.append(tx, audit, incident.id(), a.model());
            for (Judgement j : a.judgements()) {
                audit.append(tx, incident.id(), AuditKind.PROPOSAL, Actors.AGENT, j.proposal());
                Map<String, Object> v = new LinkedHashMap<>();
                v.put("proposal", j.proposal().name());
                v.put("verdict", j.verdict());
                audit.append(tx, incident.id(), AuditKind.VERDICT, Actors.AGENT, v);
            }
            memory.record(tx, incident.id(), a.evidence());
            incidents.recordAssessment(tx, incident.id(), IncidentState.TRIAGING, a.diagnosis().family().wireName(),
                    a.diagnosis().confidence(), a.summary(), Json.write(a), a.evidence().node());
            return null;
        });
        metrics.evidenceGaps(a.evidence().gaps());
        if (incident.family() == null) {
            metrics.incidentClassified(a.diagnosis().family());
            alerts.stream().map(StoredAlert::receivedAt).min(Instant::compareTo)
                    .ifPresent(first -> metrics.decided(java.time.Duration.between(first, Instant.now())));
        }
        a.judgements().forEach(j -> metrics.verdict(j.proposal().kind(), j.verdict().decision()));
        List<String> needsAPerson = new ArrayList<>(a.escalationReasons());
        boolean mitigatedNow = false;
        for (Judgement j : a.judgements()) {
            if (j.verdict().decision() == Decision.DENY) continue;
            ActionRecord r = executor.carryOut(incident.id(), j.proposal(), j.verdict());
            mitigatedNow |= r.status() == io.acceltriage.action.ActionStatus.SUCCEEDED && !r.dryRun();
            if (r.status() == io.acceltriage.action.ActionStatus.FAILED) {
                needsAPerson.add(r.kind().wireName() + " " + r.target() + " failed: " + r.detail());
            } else if (r.status() == io.acceltriage.action.ActionStatus.UNVERIFIED) {
                needsAPerson.add(r.kind().wireName() + " " + r.target() + " ran but did not take effect: " + r.detail());
            }
        }
        IncidentState state = a.awaitsApproval() ? IncidentState.AWAITING_APPROVAL
                : !needsAPerson.isEmpty() ? IncidentState.ESCALATED
                : a.diagnosis().family() == io.acceltriage.diagnosis.Family.NONE ? IncidentState.NO_FAULT
                : IncidentState.MITIGATED;
        database.transaction(tx -> {
            incidents.setState(tx, incident.id(), state);
            return null;
        });
        if (mitigatedNow && incident.state() != IncidentState.MITIGATED) {
            alerts.stream().map(StoredAlert::receivedAt).min(Instant::compareTo)
                    .ifPresent(first -> metrics.mitigated(a.diagnosis().family(), java.time.Duration.between(first, Instant.now())));
        }
        metrics.triaged(java.time.Duration.ofNanos(System.nanoTime() - began));
        escalations.tell(new Notice(incident.id(), state.name().toLowerCase(), incident.subject().key(),
                a.diagnosis().family().wireName(), a.diagnosis().confidence(), a.summary(), needsAPerson,
                "/incidents/" + incident.id()));
    }

    private void resolveIfAllResolved(String incidentId) {
        Map<String, AlertStatus> last = new LinkedHashMap<>();
        for (StoredAlert a : inbox.ofIncident(incidentId)) {
            last.put(a.alert().fingerprint(), a.alert().status());
        }
        if (!last.isEmpty() && last.values().stream().allMatch(s -> s == AlertStatus.RESOLVED)) {
            incidents.find(incidentId).filter(i -> i.state().open()).ifPresent(i -> {
                database.transaction(tx -> {
                    incidents.setState(tx, incidentId, IncidentState.RESOLVED);
                    audit.append(tx, incidentId, AuditKind.INCIDENT_RESOLVED, Actors.AGENT,
                            Map.of("reason", "every alert of the incident resolved"));
                    return null;
                });
                escalations.tell(new Notice(incidentId, "resolved", i.subject().key(), i.family() == null ? "none" : i.family(),
                        i.confidence() == null ? 0 : i.confidence(), "All alerts of " + i.subject().key() + " resolved.",
                        List.of(), "/incidents/" + incidentId));
            });
        }
    }

    private static Map<String, Object> evidencePayload(Assessment a) {
        Map<String, Object> p = new LinkedHashMap<>();
        List<Map<String, String>> items = new ArrayList<>();
        for (Evidence e : a.evidence().items()) {
            items.add(Map.of("id", e.id(), "source", e.source().name().toLowerCase(), "summary", e.summary()));
        }
        p.put("items", items);
        p.put("gaps", a.evidence().gaps());
        p.put("consulted", a.evidence().consulted());
        return p;
    }

    @PreDestroy
    void stop() {
        worker.shutdownNow();
    }
}
