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
import io.acceltriage.policy.ForcedDryRun;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Moves alerts from the durable inbox into incidents and triages them: file each alert under the open
 * incident of its subject (or open one), assess, audit every step, record what policy allowed, hand it to
 * the executor's workers, and tell people what they must know. One filing thread per replica and a bounded
 * pool of triage workers ({@code acceltriage.triage.workers}); one incident is triaged by one worker at a
 * time. The inbox is the queue, so a crash loses nothing that was acknowledged.
 *
 * <p>Actions run off the triage path ({@link Executor#runLater}): a drain that waits minutes for its
 * evictions delays no other incident's decision. They are recorded PLANNED before the triage ends, in the
 * transaction that confirms their verdicts under their pool's lock ({@link #decide}), so a crash leaves them
 * to the leader's loop and two parallel triages cannot both fence past a pool's cap.
 *
 * <p>Several replicas on one database share the work: filing takes turns (see {@link AlertFiler}), and
 * each firing alert filed asks for one triage of its incident, which the replica that claims the
 * incident's triage lease carries out ({@link IncidentStore#claimTriage}). The lease is renewed while
 * the triage runs; a replica that dies leaves it to run out, and another takes the triage over.
 */
@ApplicationScoped
public class IncidentProcessor {

    private static final Logger LOG = Logger.getLogger(IncidentProcessor.class);
    private static final int BATCH = 500;
    /** Alerts filed per transaction. */
    private static final int FILING_CHUNK = 50;

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
    private final LateSummaries summaries;
    /** Files alerts, and hands due triages to {@link #workers}. */
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "acceltriage-filing");
        t.setDaemon(true);
        return t;
    });
    /** Triages, at most {@code acceltriage.triage.workers} at once. */
    private final ExecutorService workers;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /**
     * Incidents a worker triages (or is about to) in this process, and whether the filing thread wants its
     * resolution checked once it is done: one incident is never triaged twice at once here (the lease keeps
     * other replicas off), nor resolved in the middle of its triage. Guarded by itself.
     */
    private final Map<String, Boolean> busy = new java.util.HashMap<>();
    /** Failed triages by incident: how often. Touched only by the worker triaging that incident. */
    private final Map<String, Integer> failing = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.time.Duration firstBackoff;
    /** This replica's name on the triage leases it holds. */
    private final String replica;
    private final java.time.Duration lease;
    /** Incidents whose triage lease this replica holds right now, renewed by {@link #renewLeases}. */
    private final Set<String> held = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * After this many failed triages an incident is escalated to a person, once, instead of being
     * retried for ever: whatever makes it fail (a hostile label, a bug) will not go away by itself.
     */
    static final int MAX_TRIAGE_ATTEMPTS = 3;

    IncidentProcessor(AlertInbox inbox, IncidentStore incidents, Database database, AuditLog audit,
            Executor executor, Escalations escalations, ServiceMetrics metrics, Correlation correlation, FleetResponder fleet,
            AlertFiler filer, ResponderFactory responders, LateSummaries summaries,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.triage.retry-backoff", defaultValue = "30s")
            java.time.Duration firstBackoff,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.triage.lease", defaultValue = "30s")
            java.time.Duration lease,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.replica.id") java.util.Optional<String> replica,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.http.port", defaultValue = "8080") int port,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.triage.workers", defaultValue = "4") int workers) {
        if (workers < 1) throw new IllegalArgumentException("acceltriage.triage.workers must be at least 1, not " + workers);
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        this.workers = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "acceltriage-triage-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.firstBackoff = firstBackoff;
        this.lease = lease;
        // Stable across a restart of the same replica, so it takes back its own leases at once (see recover).
        this.replica = replica.filter(r -> !r.isBlank()).orElseGet(() -> hostname() + ":" + port);
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
        this.summaries = summaries;
        metrics.inboxBacklog(inbox::pending);
    }

    private static String hostname() {
        String pod = System.getenv("POD_NAME");
        if (pod != null && !pod.isBlank()) return pod;
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    /**
     * Takes back the triage leases a crash of this replica left, drains the inbox, and finishes the actions a
     * crash interrupted, on the calling thread (the recovery thread): a drain waiting for its evictions holds
     * no triage worker.
     */
    void recover() {
        incidents.releaseTriages(replica);
        wake();
        for (ActionRecord r : executor.interrupted()) {
            LOG.infof("finishing interrupted action %s %s %s", r.id(), r.kind().wireName(), r.target());
            executor.resume(r);
        }
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
        while (true) {
            List<StoredAlert> batch = inbox.unprocessed(BATCH);
            Set<String> touched = new LinkedHashSet<>();
            correlation.expect(batch);
            for (int from = 0; from < batch.size(); from += FILING_CHUNK) {
                List<StoredAlert> chunk = batch.subList(from, Math.min(batch.size(), from + FILING_CHUNK));
                List<String> filedUnder = filer.file(chunk);
                for (int i = 0; i < chunk.size(); i++) {
                    // Only a resolved alert can be the one that leaves its incident with every alert resolved: a storm
                    // of firing alerts asks for no resolution check (each one read the incident's every alert).
                    String id = filedUnder.get(i);
                    if (id != null && chunk.get(i).alert().status() == AlertStatus.RESOLVED) touched.add(id);
                }
            }
            triageDue();
            touched.forEach(this::resolveUnlessBusy);
            if (batch.isEmpty()) {
                return;
            }
        }
    }

    /**
     * Triages every incident whose filed alerts want a triage and whose lease is free: new alerts, a
     * triage a crash interrupted (this replica's or a dead one's, once its lease ran out), a failed
     * triage whose pause has passed.
     */
    private void triageDue() {
        for (String id : incidents.dueForTriage(Instant.now(), BATCH)) {
            if (!begin(id)) continue; // a worker has it; it is due again if alerts came meanwhile
            try {
                workers.execute(() -> {
                    try {
                        triageClaimed(id);
                    } catch (RuntimeException e) {
                        LOG.errorf(e, "triage of %s could not start; it stays due and is retried", id);
                    } finally {
                        if (end(id)) resolveIfAllResolved(id);
                        wake(); // new alerts of it, filed meanwhile, were left for this worker to finish
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                end(id);
                return;
            }
        }
    }

    /** Marks {@code id} busy; false when it already is. */
    private boolean begin(String id) {
        synchronized (busy) {
            return busy.putIfAbsent(id, false) == null;
        }
    }

    /** Marks {@code id} free; whether its resolution was asked for meanwhile. */
    private boolean end(String id) {
        synchronized (busy) {
            return Boolean.TRUE.equals(busy.remove(id));
        }
    }

    /** Resolves now, or after the triage a worker runs on the incident. */
    private void resolveUnlessBusy(String id) {
        synchronized (busy) {
            if (busy.containsKey(id)) {
                busy.put(id, true);
                return;
            }
            busy.put(id, false);
        }
        try {
            resolveIfAllResolved(id);
        } finally {
            end(id);
        }
    }

    private void triageClaimed(String id) {
        Instant now = Instant.now();
        Optional<IncidentStore.TriageClaim> claim = incidents.claimTriage(id, replica, now, now.plus(lease));
        if (claim.isEmpty()) return; // another replica took it
        held.add(id);
        try {
            Optional<Incident> incident = incidents.find(id).filter(i -> i.state().open());
            // A fleet incident is triaged once: its members are sampled, later storm alerts only add to its count.
            Instant retry = incident.filter(i -> !Correlator.isFleet(i.subject()) || i.assessmentJson() == null)
                    .map(this::triageSafely).orElse(null);
            if (retry == null) {
                incidents.finishTriage(claim.get(), replica);
            } else {
                incidents.deferTriage(claim.get(), replica, retry);
            }
        } finally {
            held.remove(id);
        }
    }

    /** Keeps the leases of the triages running here from running out (called every third of a lease). */
    void renewLeases() {
        Set<String> now = Set.copyOf(held);
        if (!now.isEmpty()) incidents.renewTriage(now, replica, Instant.now().plus(lease));
    }

    /** Null when done (triaged, or escalated after its last failure); else when to try again. */
    private Instant triageSafely(Incident incident) {
        try {
            triage(incident);
            failing.remove(incident.id());
            return null;
        } catch (RuntimeException e) {
            return failed(incident, e);
        }
    }

    /**
     * The incident stays TRIAGING and its triage is tried again after a doubling pause; the alerts are
     * safe in the store. The last allowed failure escalates it, which ends the retries.
     */
    private Instant failed(Incident incident, RuntimeException e) {
        int attempts = failing.getOrDefault(incident.id(), 0) + 1;
        if (attempts < MAX_TRIAGE_ATTEMPTS) {
            java.time.Duration pause = firstBackoff.multipliedBy(1L << (attempts - 1));
            failing.put(incident.id(), attempts);
            LOG.errorf(e, "triage of %s failed (attempt %d of %d); trying again in %s", incident.id(), attempts, MAX_TRIAGE_ATTEMPTS, pause);
            return Instant.now().plus(pause);
        }
        failing.remove(incident.id());
        LOG.errorf(e, "triage of %s failed %d times; escalating it to a person", incident.id(), attempts);
        String why = "triage failed " + attempts + " times (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + abbreviate(e.getMessage())) + "); a person must look at it";
        try {
            database.transaction(tx -> {
                incidents.setState(tx, incident.id(), IncidentState.ESCALATED);
                escalations.tell(tx, new Notice(incident.id(), IncidentState.ESCALATED.name().toLowerCase(), incident.subject().key(),
                        incident.family() == null ? "none" : incident.family(), incident.confidence() == null ? 0 : incident.confidence(),
                        "Triage of " + incident.subject().key() + " keeps failing.", List.of(why), "/incidents/" + incident.id()));
                return null;
            });
            escalations.queued();
        } catch (RuntimeException again) {
            // The store is down too: count this attempt again, so the escalation is tried at the next pass.
            failing.put(incident.id(), attempts - 1);
            LOG.errorf(again, "could not escalate %s; trying again later", incident.id());
            return Instant.now().plus(firstBackoff);
        }
        return null;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    private void triage(Incident incident) {
        long began = System.nanoTime();
        List<StoredAlert> alerts = inbox.ofIncident(incident.id());
        Assessment assessed = fleet.assess(incident.subject(), alerts.stream().map(StoredAlert::alert)
                .filter(x -> x.status() == AlertStatus.FIRING).toList());
        // A shadow drill's incident runs dry for its whole life (all its alerts, resolved ones too, decide it).
        Optional<ForcedDryRun.Forced> forced = ForcedDryRun.of(alerts.stream().map(x -> x.alert().labels()).toList());
        Assessment decided = forced.map(f -> dry(assessed, f)).orElse(assessed);
        List<ActionRecord> planned = new ArrayList<>();
        long assessedAt = System.nanoTime();
        Assessment a = decide(incident, decided, forced, planned);
        if (LOG.isDebugEnabled()) {
            LOG.debugf("triage of %s: from the last alert's arrival %d ms, alerts and assessment %d ms, decision transaction %d ms",
                    incident.id(), alerts.stream().map(StoredAlert::receivedAt).max(Instant::compareTo)
                            .map(r -> java.time.Duration.between(r, Instant.now()).toMillis()).orElse(-1L),
                    (assessedAt - began) / 1_000_000, (System.nanoTime() - assessedAt) / 1_000_000);
        }
        metrics.evidenceGaps(a.evidence().gaps());
        if (incident.family() == null) {
            metrics.incidentClassified(a.diagnosis().family());
            alerts.stream().map(StoredAlert::receivedAt).min(Instant::compareTo)
                    .ifPresent(first -> metrics.decided(java.time.Duration.between(first, Instant.now())));
        }
        a.judgements().forEach(j -> metrics.verdict(j.proposal().kind(), j.verdict().decision()));
        List<String> needsAPerson = new ArrayList<>(a.escalationReasons());
        if (forced.isPresent() && forced.get().realAlertJoined()) {
            needsAPerson.add("an alert that is not the shadow drill's joined its incident: every action here stays a dry run;"
                    + " decide by hand what the real fault needs");
        }
        // Actions an earlier triage of the incident recorded and that already ended; new ones run after the state is stored.
        boolean mitigatedNow = false;
        for (ActionRecord r : planned) {
            mitigatedNow |= r.status() == io.acceltriage.action.ActionStatus.SUCCEEDED && !r.dryRun();
            failure(r).ifPresent(needsAPerson::add);
        }
        IncidentState state = a.awaitsApproval() ? IncidentState.AWAITING_APPROVAL
                : !needsAPerson.isEmpty() ? IncidentState.ESCALATED
                : a.diagnosis().family() == io.acceltriage.diagnosis.Family.NONE ? IncidentState.NO_FAULT
                : IncidentState.MITIGATED;
        // The state and the notice that tells it commit together: a crash between them neither loses the
        // message nor sends one about a state that was never stored.
        Notice told = new Notice(incident.id(), state.name().toLowerCase(), incident.subject().key(),
                a.diagnosis().family().wireName(), a.diagnosis().confidence(), a.summary(), needsAPerson,
                "/incidents/" + incident.id());
        try {
            database.transaction(tx -> {
                incidents.setState(tx, incident.id(), state);
                escalations.tell(tx, told);
                return null;
            });
        } catch (RuntimeException e) {
            executor.release(planned); // PLANNED and committed: the leader's loop runs them
            throw e;
        }
        // Decided and stored: the actions run on the executor's workers, and a failed one escalates the incident then.
        executor.runLater(planned, r -> acted(incident, alerts, a, r));
        escalations.queued();
        if (mitigatedNow && incident.state() != IncidentState.MITIGATED) mitigated(alerts, a);
        metrics.triaged(java.time.Duration.ofNanos(System.nanoTime() - began));
        // Only now is the model asked for its summary, off this thread.
        summaries.ask(incident.id(), a, told);
    }

    /**
     * The decision's transaction: every allowed action's verdict confirmed under the locks of its pool and
     * workloads, counting what other triages planned and have not applied ({@link io.acceltriage.policy.PolicyEngine#confirm}),
     * the audit of evidence, diagnosis, proposals and verdicts, the assessment, and the actions recorded
     * (PLANNED ones claimed for this process, into {@code planned}). Returns the assessment as confirmed.
     */
    private Assessment decide(Incident incident, Assessment decided, Optional<ForcedDryRun.Forced> forced, List<ActionRecord> planned) {
        ActionPlans plans = new ActionPlans(executor, fleet.policy());
        ActionPlans.Prepared prepared = plans.prepare(decided.judgements());
        try {
            return database.transaction(tx -> {
                planned.clear();
                Assessment a = confirmed(decided, plans.confirm(tx, incident.id(), prepared));
                // The incident's row before the audit's head, as the filer takes them: a transaction holding the head
                // while it waits for an incident row that the filer holds while it waits for the head is a deadlock
                // (PostgreSQL ended one so, with the webhook queued for the head as its victim).
                incidents.recordAssessment(tx, incident.id(), IncidentState.TRIAGING, a.diagnosis().family().wireName(),
                        a.diagnosis().confidence(), a.summary(), Json.write(a), a.evidence().node());
                // Once, on the incident's first triage: the dry run is a property of the incident, a re-triage decides the same.
                forced.filter(f -> incident.family() == null).ifPresent(f -> audit.append(tx, incident.id(), AuditKind.DRY_RUN_FORCED, Actors.AGENT, Map.of("reason", f.reason(),
                        "drills", f.drills(), "verdictsDry", a.judgements().stream().filter(j -> j.verdict().dryRun()).count(),
                        "realAlertJoined", f.realAlertJoined())));
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
                planned.addAll(plans.record(tx, incident.id(), a.judgements()));
                return a;
            });
        } catch (RuntimeException e) {
            executor.release(planned); // rolled back: nothing of it exists
            throw e;
        }
    }

    /** The assessment with its verdicts as confirmed; each refusal at confirmation is a reason for a person. */
    private static Assessment confirmed(Assessment a, ActionPlans.Confirmed c) {
        if (c.refused().isEmpty()) return a;
        List<String> escalation = new ArrayList<>(a.escalationReasons());
        escalation.addAll(c.refused());
        return new Assessment(a.mode(), a.subject(), a.alerts(), a.evidence(), a.diagnosis(), c.judgements(), escalation,
                a.summary() + " Needs a person: " + String.join("; ", c.refused()), a.model(), a.workLost());
    }

    /** Why {@code r} needs a person, when it ended badly. */
    private static Optional<String> failure(ActionRecord r) {
        if (r.status() == io.acceltriage.action.ActionStatus.FAILED) {
            return Optional.of(r.kind().wireName() + " " + r.target() + " failed: " + r.detail());
        }
        if (r.status() == io.acceltriage.action.ActionStatus.UNVERIFIED) {
            return Optional.of(r.kind().wireName() + " " + r.target() + " ran but did not take effect: " + r.detail());
        }
        return Optional.empty();
    }

    /**
     * An action of the incident ended on the executor's workers: one that failed or did not take escalates the
     * incident to a person, with why; one that worked counts as its mitigation.
     */
    private void acted(Incident incident, List<StoredAlert> alerts, Assessment a, ActionRecord r) {
        Optional<String> why = failure(r);
        if (why.isEmpty()) {
            if (r.status() == io.acceltriage.action.ActionStatus.SUCCEEDED && !r.dryRun() && incident.state() != IncidentState.MITIGATED) {
                mitigated(alerts, a);
            }
            return;
        }
        Optional<Incident> now = incidents.find(incident.id()).filter(i -> i.state().open());
        if (now.isEmpty()) return;
        List<String> needsAPerson = new ArrayList<>(a.escalationReasons());
        needsAPerson.add(why.get());
        database.transaction(tx -> {
            incidents.setState(tx, incident.id(), IncidentState.ESCALATED);
            escalations.tell(tx, new Notice(incident.id(), IncidentState.ESCALATED.name().toLowerCase(), incident.subject().key(),
                    a.diagnosis().family().wireName(), a.diagnosis().confidence(), a.summary(), needsAPerson, "/incidents/" + incident.id()));
            return null;
        });
        escalations.queued();
    }

    private void mitigated(List<StoredAlert> alerts, Assessment a) {
        alerts.stream().map(StoredAlert::receivedAt).min(Instant::compareTo)
                .ifPresent(first -> metrics.mitigated(a.diagnosis().family(), java.time.Duration.between(first, Instant.now())));
    }

    private static Assessment dry(Assessment a, ForcedDryRun.Forced forced) {
        List<Judgement> judgements = a.judgements().stream()
                .map(j -> new Judgement(j.proposal(), ForcedDryRun.apply(j.verdict(), forced))).toList();
        // The summary was written before the verdicts ran dry: say so first, so "cordon-node → allow" is not read as done.
        String summary = a.judgements().isEmpty() || a.summary() == null ? a.summary()
                : "Shadow drill " + String.join(", ", forced.drills()) + ": every action below is a dry run, nothing was changed. "
                        + a.summary();
        return new Assessment(a.mode(), a.subject(), a.alerts(), a.evidence(), a.diagnosis(), judgements, a.escalationReasons(),
                summary, a.model(), a.workLost());
    }

    private void resolveIfAllResolved(String incidentId) {
        if (inbox.allResolved(incidentId)) {
            incidents.find(incidentId).filter(i -> i.state().open()).ifPresent(i -> {
                database.transaction(tx -> {
                    incidents.setState(tx, incidentId, IncidentState.RESOLVED);
                    audit.append(tx, incidentId, AuditKind.INCIDENT_RESOLVED, Actors.AGENT,
                            Map.of("reason", "every alert of the incident resolved"));
                    escalations.tell(tx, new Notice(incidentId, "resolved", i.subject().key(), i.family() == null ? "none" : i.family(),
                            i.confidence() == null ? 0 : i.confidence(), "All alerts of " + i.subject().key() + " resolved.",
                            List.of(), "/incidents/" + incidentId));
                    return null;
                });
                escalations.queued();
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
        workers.shutdownNow();
    }
}
