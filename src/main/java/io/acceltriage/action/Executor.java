package io.acceltriage.action;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Carries out verdicts. The only class that changes the cluster. Each action is recorded PLANNED
 * (with its audit record) before it runs and updated after, under an idempotency key of incident,
 * kind and target, so a re-delivered alert or a retry never applies it twice. Only the replica
 * holding the lease acts; on the others an allowed action stays PLANNED until the leader runs it.
 */
public final class Executor {

    private static final Logger LOG = Logger.getLogger(Executor.class);
    static final int ATTEMPTS = 3;
    /** Actions running at once by default: a drain waits minutes for its evictions, others need not wait for it. */
    public static final int WORKERS = 4;
    /** Incidents' actions waiting for a worker; beyond it they stay PLANNED for the leader's loop. */
    private static final int QUEUED = 1_000;

    private final Database database;
    private final AuditLog audit;
    private final ActionStore store;
    private final UndoRequests undos;
    private final Leadership leadership;
    private final Map<ActionKind, Mitigation> mitigations = new EnumMap<>(ActionKind.class);
    /** Actions this process is running now, so the resume loop and the triage worker never run one twice. */
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final RepairSteps steps;
    private final RestartGroup restarts;
    /** The kinds stored with, and held for, {@link io.acceltriage.policy.Proposal#atCheckpoint()}. */
    private static final Set<ActionKind> WAITS_FOR_CHECKPOINT = java.util.EnumSet.of(ActionKind.RESTART_GROUP, ActionKind.DRAIN_NODE);
    /** Restarts this process already audited as waiting for a checkpoint: the audit says it once, not every tick. */
    private final Set<String> toldWaiting = ConcurrentHashMap.newKeySet();
    /** Why a restart that waited for a checkpoint may run now, said in its outcome. */
    private final Map<String, String> released = new ConcurrentHashMap<>();
    /** Runs planned actions off the triage path ({@link #runLater}). */
    private final java.util.concurrent.ThreadPoolExecutor pool;

    public Executor(KubernetesClient client, Database database, AuditLog audit) {
        this(client, database, audit, Leadership.ALWAYS, Timing.DEFAULT, () -> null);
    }

    public Executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, Timing timing,
            Supplier<Policy> policy) {
        this(client, database, audit, leadership, timing, policy, GpuDevices.NONE);
    }

    public Executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, Timing timing,
            Supplier<Policy> policy, GpuDevices gpus) {
        this(client, database, audit, leadership, timing, policy, gpus, List.of("acceltriage.io/pool"));
    }

    /** {@code poolLabels}: the node labels that name a node's pool (validate-node's level is per pool). */
    public Executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, Timing timing,
            Supplier<Policy> policy, GpuDevices gpus, List<String> poolLabels) {
        this(client, database, audit, leadership, timing, policy, gpus, poolLabels, WORKERS);
    }

    /** {@code workers}: how many actions (of different incidents) run at once off the triage path, see {@link #runLater}. */
    public Executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, Timing timing,
            Supplier<Policy> policy, GpuDevices gpus, List<String> poolLabels, int workers) {
        this(client, database, audit, leadership, timing, policy, gpus, poolLabels, workers, null);
    }

    /** {@code checkpoints}: how a restart's wait reads the gang's last checkpoint (null: the annotation only). */
    public Executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, Timing timing,
            Supplier<Policy> policy, GpuDevices gpus, List<String> poolLabels, int workers,
            io.acceltriage.evidence.Checkpoints checkpoints) {
        this.pool = new java.util.concurrent.ThreadPoolExecutor(workers, workers, 60, java.util.concurrent.TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(QUEUED), r -> {
                    Thread t = new Thread(r, "acceltriage-actions");
                    t.setDaemon(true);
                    return t;
                });
        this.pool.allowCoreThreadTimeOut(true);
        this.database = database;
        this.audit = audit;
        this.store = new ActionStore(database);
        this.undos = new UndoRequests(database);
        this.leadership = leadership;
        this.steps = new RepairSteps(client, store, policy);
        Supplier<Policy.Taint> taint = () -> policy.get() == null ? null : policy.get().cordonTaint();
        this.restarts = new RestartGroup(client, timing, policy, checkpoints);
        for (Mitigation m : List.of(new CordonNode(client, taint, timing), new RestartPod(client, timing),
                restarts, new DrainNode(client, taint, timing), new ShiftReplicas(client, timing),
                new RestartNodeAgent(client, timing), new ResetGpu(client, taint, gpus, policy, node -> store.cordonedNodes().containsKey(node), timing),
                new RepairNode(client, taint, policy, poolLabels, timing), new ReplaceNode(client, taint, policy, poolLabels, timing),
                new ReturnNode(client, taint, policy, timing),
                new ValidateNode(client, policy, poolLabels, timing),
                new PauseRollout(client, timing))) {
            mitigations.put(m.kind(), m);
        }
    }

    /**
     * Records the proposal's verdict as an action in the caller's transaction (with its audit record), under an
     * idempotency key of incident and proposal: the existing record when there is one. A new PLANNED action is
     * claimed for this process before the commit, so the leader's loop never picks it up while {@link #runLater}
     * is about to run it; {@link #release} gives up the claim of one that will not run here. Its target's uid is read
     * after the commit, off the decision's path ({@link #runLater}).
     */
    public ActionRecord plan(Tx tx, String incidentId, Proposal proposal, Verdict verdict) {
        String key = incidentId + "|" + proposal.name();
        Optional<ActionRecord> found = store.byKey(tx, key);
        if (found.isPresent()) return found.get();
        ActionStatus initial = verdict.decision() == Decision.APPROVE ? ActionStatus.AWAITING_APPROVAL
                : verdict.decision() == Decision.DENY ? ActionStatus.SKIPPED : ActionStatus.PLANNED;
        ActionRecord created = store.insert(tx, key, incidentId, proposal.kind(), proposal.target(), verdict.decision(), initial,
                verdict.dryRun(), String.join("; ", verdict.reasons()), null,
                proposal.atCheckpoint() && WAITS_FOR_CHECKPOINT.contains(proposal.kind()));
        if (initial == ActionStatus.PLANNED) {
            audit.append(tx, incidentId, AuditKind.ACTION_STARTED, Actors.AGENT, payload(created, null));
            running.add(created.id());
        }
        return created;
    }

    /** The action recorded for {@code proposal} of the incident, if any: {@link #plan} returns it unchanged. */
    public Optional<ActionRecord> recorded(Tx tx, String incidentId, Proposal proposal) {
        return store.byKey(tx, incidentId + "|" + proposal.name());
    }

    /**
     * Actions allowed and not applied yet, by any replica (PLANNED, not dry runs), read in {@code tx}: what
     * {@link io.acceltriage.policy.PolicyEngine#confirm} counts beside the cluster.
     */
    public List<io.acceltriage.policy.ActionHistory.Past> unapplied(Tx tx) {
        return store.planned(tx).stream().map(r -> new io.acceltriage.policy.ActionHistory.Past(r.kind(), r.target(), r.createdAt()))
                .toList();
    }

    /** Whether this process has claimed {@code r} ({@link #plan}) and may run it. */
    public boolean claimed(ActionRecord r) {
        return r.status() == ActionStatus.PLANNED && running.contains(r.id());
    }

    /** Gives up the claims of planned actions that will not run here: the leader's loop runs them. */
    public void release(List<ActionRecord> records) {
        records.forEach(r -> running.remove(r.id()));
    }

    /**
     * Runs the claimed PLANNED actions of one incident, in order (a cordon before its drain), on the action
     * workers, and hands each finished record to {@code done}. Nothing waits for them: a drain that holds for
     * minutes delays no other incident's triage. When this replica does not lead, or every worker and the queue
     * are taken, the actions stay PLANNED for the leader's loop ({@link #resumePlanned}), which runs them later.
     */
    public void runLater(List<ActionRecord> records, java.util.function.Consumer<ActionRecord> done) {
        List<ActionRecord> mine = records.stream().filter(this::claimed).toList();
        if (mine.isEmpty()) return;
        if (!leadership.isLeader()) {
            release(mine);
            return;
        }
        try {
            pool.execute(() -> {
                for (ActionRecord r : mine) {
                    ActionRecord finished;
                    try {
                        finished = runClaimed(withSubject(r));
                    } catch (RuntimeException e) {
                        LOG.errorf(e, "%s %s: could not be carried out; it stays planned for the leader's loop", r.kind().wireName(),
                                r.target());
                        continue;
                    } finally {
                        running.remove(r.id());
                    }
                    try {
                        done.accept(finished);
                    } catch (RuntimeException e) {
                        LOG.errorf(e, "after %s %s", r.kind().wireName(), r.target());
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException full) {
            LOG.warnf("%d actions wait for a worker; %d more are left to the leader's loop", pool.getQueue().size(), mine.size());
            release(mine);
        }
    }

    /**
     * {@code r} with the uid of its target, read now and stored, so the action (and a later run of it by the leader's
     * loop, after a checkpoint wait, say) never touches a namesake made later. A crash before this leaves no uid;
     * the action then reads its target when it runs.
     */
    private ActionRecord withSubject(ActionRecord r) {
        Mitigation m = mitigations.get(r.kind());
        if (r.subjectUid() != null || m == null) return r;
        String uid = captureQuietly(m, r.target());
        return uid == null ? r : database.transaction(tx -> store.subjectUid(tx, r, uid));
    }

    /** Records the proposal's verdict as an action and, when allowed and this replica leads, runs it on this thread. */
    public ActionRecord carryOut(String incidentId, Proposal proposal, Verdict verdict) {
        String key = incidentId + "|" + proposal.name();
        ActionStatus initial = verdict.decision() == Decision.APPROVE ? ActionStatus.AWAITING_APPROVAL
                : verdict.decision() == Decision.DENY ? ActionStatus.SKIPPED : ActionStatus.PLANNED;
        Mitigation m = mitigations.get(proposal.kind());
        String uid = initial == ActionStatus.PLANNED && m != null ? captureQuietly(m, proposal.target()) : null;
        ActionRecord[] created = new ActionRecord[1];
        Optional<ActionRecord> existing = database.transaction(tx -> {
            Optional<ActionRecord> found = store.byKey(tx, key);
            if (found.isPresent()) {
                return found;
            }
            created[0] = store.insert(tx, key, incidentId, proposal.kind(), proposal.target(), verdict.decision(), initial,
                    verdict.dryRun(), String.join("; ", verdict.reasons()), uid,
                    proposal.atCheckpoint() && WAITS_FOR_CHECKPOINT.contains(proposal.kind()));
            if (initial == ActionStatus.PLANNED) {
                audit.append(tx, incidentId, AuditKind.ACTION_STARTED, Actors.AGENT, payload(created[0], null));
                // Claimed before commit: the resume loop can never pick up a row the worker is about to run.
                running.add(created[0].id());
            }
            return Optional.empty();
        });
        if (existing.isPresent()) {
            return existing.get();
        }
        ActionRecord record = created[0];
        if (record.status() != ActionStatus.PLANNED) {
            return record;
        }
        try {
            return leadership.isLeader() ? runClaimed(record) : record;
        } finally {
            running.remove(record.id());
        }
    }

    /** Runs a PLANNED action unless this process is already running it. */
    ActionRecord run(ActionRecord record) {
        if (!running.add(record.id())) {
            return record;
        }
        try {
            return runClaimed(record);
        } finally {
            running.remove(record.id());
        }
    }

    private ActionRecord runClaimed(ActionRecord record) {
        if (!leadership.isLeader()) {
            return record;
        }
        if (record.status() == ActionStatus.VERIFYING) {
            // It ran before a crash or a change of leader and its check did not finish: checked now, never run twice.
            return verify(mitigations.get(record.kind()), record, steps.target(record));
        }
        // The checkpoint first: a drain at a checkpoint says it waits for the gang's, then for the gang's restart.
        Optional<ActionRecord> held = heldForCheckpoint(record);
        if (held.isPresent()) {
            return held.get();
        }
        RepairSteps.State step = steps.of(record);
        if (step.readiness() == RepairSteps.Readiness.WAITING || firstResponsePending(record).isPresent()) {
            return record; // the leader's loop runs it once the step (or the first response) before it completes
        }
        if (step.readiness() == RepairSteps.Readiness.NEVER) {
            released.remove(record.id());
            return database.transaction(tx -> {
                ActionRecord skipped = store.update(tx, record, ActionStatus.SKIPPED, record.detail() + "; not run: " + step.why());
                audit.append(tx, record.incidentId(), AuditKind.ACTION_FAILED, Actors.AGENT, payload(skipped, Outcome.failed("not run: "
                        + step.why(), false)));
                return skipped;
            });
        }
        Mitigation m = mitigations.get(record.kind());
        Mitigation.Target target = steps.target(record);
        Outcome outcome;
        if (m == null) {
            outcome = Outcome.failed(record.kind().wireName() + " is not carried out by this version; a person must do it", false);
        } else {
            Optional<String> unmet = unmet(m, target);
            if (unmet.isPresent()) {
                outcome = Outcome.failed("precondition " + unmet.get(), false);
            } else {
                outcome = attempt(m, record, target);
                if (outcome == null) {
                    LOG.warnf("lost the lease before %s %s ran; the new leader finishes it", record.kind().wireName(), record.target());
                    return record;
                }
            }
        }
        String waited = released.remove(record.id());
        if (waited != null) outcome = new Outcome(outcome.success(), waited + "; " + outcome.detail(), outcome.retryable());
        ActionStatus status = outcome.success() ? (record.dryRun() ? ActionStatus.DRY_RUN : ActionStatus.VERIFYING)
                : ActionStatus.FAILED;
        Outcome finalOutcome = outcome;
        ActionRecord finished = database.transaction(tx -> {
            ActionRecord updated = store.update(tx, record, status, finalOutcome.detail());
            audit.append(tx, record.incidentId(), finalOutcome.success() ? AuditKind.ACTION_FINISHED : AuditKind.ACTION_FAILED,
                    Actors.AGENT, payload(updated, finalOutcome));
            return updated;
        });
        return status == ActionStatus.VERIFYING ? verify(m, finished, target) : finished;
    }

    /**
     * A gang restart proposed for a degraded device waits for the gang's next checkpoint, and a drain proposed to empty
     * a node for a device's replacement for the next checkpoint of every gang with a member on the node (each at most
     * the policy's {@code checkpoints.maxWait}): while it waits the row stays PLANNED, the leader's loop asks again
     * every few seconds, and the wait is audited once ("waiting for checkpoint"). Empty when it may run now; then why
     * it may (the checkpoint, or the longest wait passed) is added to its detail.
     */
    private Optional<ActionRecord> heldForCheckpoint(ActionRecord record) {
        if (!record.atCheckpoint() || !WAITS_FOR_CHECKPOINT.contains(record.kind())) return Optional.empty();
        RestartGroup.CheckpointWait wait;
        try {
            wait = record.kind() == ActionKind.DRAIN_NODE
                    ? restarts.nodeCheckpointWait(record.target(), record.createdAt(), java.time.Instant.now())
                    : restarts.checkpointWait(record.target(), record.createdAt(), java.time.Instant.now());
        } catch (KubernetesClientException e) {
            LOG.warnf("could not read the checkpoint of %s: %s; asked again at the next tick", record.target(), apiFailure(e));
            return Optional.of(record);
        }
        if (wait.waiting()) {
            if (toldWaiting.add(record.id()) && (record.detail() == null || !record.detail().contains("waiting for checkpoint"))) {
                return Optional.of(database.transaction(tx -> {
                    ActionRecord waiting = store.update(tx, record, ActionStatus.PLANNED, record.detail() + "; " + wait.why());
                    Map<String, Object> p = payload(waiting, null);
                    p.put("waiting", wait.why());
                    audit.append(tx, record.incidentId(), AuditKind.ACTION_STARTED, Actors.AGENT, p);
                    return waiting;
                }));
            }
            return Optional.of(record);
        }
        toldWaiting.remove(record.id());
        released.putIfAbsent(record.id(), wait.why()); // the first release says why: the checkpoint, not what is left after
        return Optional.empty();
    }

    /** Checks the action had its effect; an action that did not is UNVERIFIED, and the processor escalates it. */
    private ActionRecord verify(Mitigation m, ActionRecord record, Mitigation.Target target) {
        Outcome check;
        try {
            check = m.verify(target);
        } catch (KubernetesClientException e) {
            check = Outcome.failed("could not verify: " + apiFailure(e), false);
        }
        Outcome result = check;
        return database.transaction(tx -> {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("action", record.id());
            p.put("kind", record.kind().wireName());
            p.put("target", record.target());
            p.put("verified", result.success());
            p.put("detail", result.detail());
            audit.append(tx, record.incidentId(), AuditKind.VERIFICATION, Actors.AGENT, p);
            if (result.success()) {
                return store.update(tx, record, ActionStatus.SUCCEEDED, record.detail() + "; verified: " + result.detail());
            }
            return store.update(tx, record, ActionStatus.UNVERIFIED, record.detail() + "; verification failed: " + result.detail());
        });
    }

    /** The first precondition that does not hold, as "name: why"; empty when all hold. */
    Optional<String> unmet(ActionRecord record) {
        Mitigation m = mitigations.get(record.kind());
        if (m == null) return Optional.of("supported: " + record.kind().wireName() + " is not carried out by this version");
        String uid = record.subjectUid() != null ? record.subjectUid() : captureQuietly(m, record.target());
        return unmet(m, new Mitigation.Target(steps.target(record).name(), uid));
    }

    private static Optional<String> unmet(Mitigation m, Mitigation.Target target) {
        for (Precondition p : m.preconditions()) {
            Optional<String> why;
            try {
                why = p.unmet(target);
            } catch (KubernetesClientException e) {
                why = Optional.of("could not be checked: " + apiFailure(e));
            }
            if (why.isPresent()) return Optional.of(p.name() + ": " + why.get());
        }
        return Optional.empty();
    }

    /** Null when the lease was lost between attempts: the action stays PLANNED for the new leader. */
    private Outcome attempt(Mitigation m, ActionRecord record, Mitigation.Target target) {
        Outcome last = null;
        for (int i = 1; i <= ATTEMPTS; i++) {
            if (!leadership.isLeader()) {
                return null;
            }
            try {
                last = m.apply(target, record.dryRun());
            } catch (KubernetesClientException e) {
                last = Outcome.failed(apiFailure(e), retryable(e));
            }
            if (last.success() || !last.retryable()) {
                return last;
            }
            LOG.warnf("%s %s attempt %d failed: %s", record.kind().wireName(), record.target(), i, last.detail());
            if (i < ATTEMPTS) sleep(200L << (i - 1));
        }
        return Outcome.failed(last.detail() + " (gave up after " + ATTEMPTS + " attempts)", false);
    }

    /** Worth another attempt: a conflict, a rate limit, a server error, or no answer at all. */
    static boolean retryable(KubernetesClientException e) {
        return e.getCode() == 409 || e.getCode() == 429 || e.getCode() >= 500 || e.getCode() <= 0;
    }

    /**
     * The API server's failure in words an operator can act on. fabric8 gives a request that got no
     * answer (a timeout, a refused connection) the code 0 or -1, which is no HTTP status to print.
     */
    static String apiFailure(KubernetesClientException e) {
        if (e.getCode() > 0) {
            return "Kubernetes API answered HTTP " + e.getCode() + ": " + e.getMessage();
        }
        boolean timeout = false;
        for (Throwable t = e; t != null && !timeout; t = t.getCause() == t ? null : t.getCause()) {
            timeout = t instanceof java.util.concurrent.TimeoutException || t instanceof java.net.http.HttpTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout");
        }
        return "Kubernetes API: " + (timeout ? "no answer within the request timeout" : "no answer") + " (" + e.getMessage()
                + "); check the API server and the network to it";
    }

    /**
     * Reverts a finished action where the mitigation has an undo (uncordon). Refused, with the reason,
     * for actions that have none or have not run. On a replica without the lease the undo is stored
     * and the record comes back unchanged: the leader carries it out ({@link #runRequestedUndos}).
     */
    public ActionRecord undo(String actionId, String by) {
        ActionRecord r = store.byId(actionId).orElseThrow(() -> new IllegalArgumentException("no action " + actionId));
        Mitigation m = mitigations.get(r.kind());
        if (m == null || !m.undoable()) {
            throw new IllegalStateException(r.kind().wireName() + " has no undo: a person reverts it by hand");
        }
        if (r.status() != ActionStatus.SUCCEEDED && r.status() != ActionStatus.UNVERIFIED) {
            throw new IllegalStateException("action " + actionId + " is " + r.status().name().toLowerCase()
                    + "; only a finished action can be undone");
        }
        if (!leadership.isLeader()) {
            undos.add(actionId, by);
            return r;
        }
        Outcome o;
        try {
            o = m.undo(steps.target(r));
        } catch (KubernetesClientException e) {
            o = Outcome.failed(apiFailure(e), e.getCode() >= 500 || e.getCode() <= 0);
        }
        Outcome outcome = o;
        return database.transaction(tx -> {
            Map<String, Object> p = payload(r, outcome);
            p.put("undo", true);
            p.put("by", by);
            audit.append(tx, r.incidentId(), outcome.success() ? AuditKind.ACTION_FINISHED : AuditKind.ACTION_FAILED, by, p);
            return outcome.success() ? store.update(tx, r, ActionStatus.UNDONE, r.detail() + "; undone by " + by + ": " + outcome.detail())
                    : r;
        });
    }

    public List<ActionRecord> ofIncident(String incidentId) {
        return store.ofIncident(incidentId);
    }

    public Optional<ActionRecord> find(String actionId) {
        return store.byId(actionId);
    }

    public List<ActionRecord> withStatus(ActionStatus status) {
        return store.withStatus(status);
    }

    /** Node → incident of the latest successful cordon of it by this service (the fleet page's "cordoned by"). */
    public java.util.Map<String, String> cordonedNodes() {
        return store.cordonedNodes();
    }

    public List<ActionRecord> recent(int limit) {
        return store.recent(limit);
    }

    /** Actions that touched {@code node} (any of its GPUs included) and ran, at or after {@code since}: its remediation history. */
    public List<ActionRecord> onNode(String node, java.time.Instant since) {
        return store.countedSince(since).stream().filter(r -> node.equals(r.kind().node(r.target()))).toList();
    }

    /** Finishes an action a crash left PLANNED: mitigations are idempotent, so running it again is safe. */
    public ActionRecord resume(ActionRecord record) {
        return run(record);
    }

    /** Actions a crash, or a replica without the lease, left PLANNED, and those it left VERIFYING (checked again). */
    public List<ActionRecord> interrupted() {
        List<ActionRecord> out = new java.util.ArrayList<>(store.withStatus(ActionStatus.PLANNED));
        out.addAll(store.withStatus(ActionStatus.VERIFYING));
        return out;
    }

    /** Runs every PLANNED action, and checks every VERIFYING one, when this replica leads; the leader's loop calls it every few seconds. */
    public int resumePlanned() {
        if (!leadership.isLeader()) return 0;
        int n = 0;
        for (ActionRecord r : interrupted()) {
            if (!leadership.isLeader()) break;
            if (run(r) != r) n++;
        }
        return n;
    }

    /**
     * The later steps of a repair whose step before has now completed: an allowed one runs at the next
     * pass over PLANNED actions; one awaiting approval is proposed to people now (audited), its approval
     * window starting now; one whose step before did not complete is skipped. Returns how many moved.
     */
    public int followUps() {
        if (!leadership.isLeader()) return 0;
        int n = 0;
        for (ActionRecord r : store.withStatus(ActionStatus.AWAITING_APPROVAL)) {
            if (!RepairSteps.follows(r.kind()) || RepairSteps.markedReady(r)) continue;
            RepairSteps.State step = steps.of(r);
            if (step.readiness() == RepairSteps.Readiness.WAITING || "no step before it".equals(step.why())) continue;
            boolean ready = step.ready();
            database.transaction(tx -> {
                ActionRecord moved = store.update(tx, r, ready ? ActionStatus.AWAITING_APPROVAL : ActionStatus.SKIPPED,
                        r.detail() + (ready ? "; ready for approval: " : "; not run: ") + step.why());
                Map<String, Object> p = payload(moved, null);
                p.put(ready ? "ready" : "skipped", step.why());
                audit.append(tx, r.incidentId(), ready ? AuditKind.PROPOSAL : AuditKind.ACTION_FAILED, Actors.AGENT, p);
                return moved;
            });
            n++;
        }
        return n;
    }

    /** Carries out the undos people asked of other replicas; the leader's loop calls it. */
    public int runRequestedUndos() {
        if (!leadership.isLeader()) return 0;
        int n = 0;
        for (UndoRequests.Request q : undos.pending()) {
            if (!leadership.isLeader()) break;
            try {
                undo(q.actionId(), q.by());
                n++;
            } catch (IllegalArgumentException | IllegalStateException e) {
                // Undone meanwhile (a leader that crashed after the undo ran), or no longer undoable: nothing left to do.
                LOG.infof("requested undo of %s by %s not carried out: %s", q.actionId(), q.by(), e.getMessage());
            }
            undos.done(q.actionId());
        }
        return n;
    }

    /**
     * When a waiting action's approval window started: when it was proposed, or, for a later step of a
     * repair, when the step before it completed; empty while that step has not completed.
     */
    Optional<java.time.Instant> awaitingSince(ActionRecord r) {
        if (!RepairSteps.follows(r.kind())) return Optional.of(r.createdAt());
        if (RepairSteps.markedReady(r)) return Optional.of(r.updatedAt());
        return steps.of(r).readiness() == RepairSteps.Readiness.WAITING ? Optional.empty() : Optional.of(r.createdAt());
    }

    /** Why an action waits for the step before it; empty when it need not. */
    Optional<String> waitsFor(ActionRecord r) {
        RepairSteps.State step = steps.of(r);
        return step.readiness() == RepairSteps.Readiness.WAITING ? Optional.of(step.why()) : firstResponsePending(r);
    }

    /**
     * A person's action runs after the incident's allowed first response (its cordon, its gang's restart) that this
     * process is carrying out right now: those run on the executor's workers after the decision, and a GPU reset
     * approved meanwhile would find the gang's member still on the GPU. The leader's loop runs it once they are done.
     */
    private Optional<String> firstResponsePending(ActionRecord r) {
        if (r.decision() == Decision.ALLOW) return Optional.empty();
        return store.ofIncident(r.incidentId()).stream()
                .filter(o -> !o.id().equals(r.id()) && o.decision() == Decision.ALLOW && o.status() == ActionStatus.PLANNED
                        && running.contains(o.id()))
                .findFirst().map(o -> o.kind().wireName() + " " + o.target() + " of the same incident runs first");
    }

    /**
     * Waits, at most {@code max}, for the first response {@link #firstResponsePending} names: an approval is carried
     * out in the approving request, as before actions left the triage path, once what must go first has run.
     */
    void awaitFirstResponse(ActionRecord r, java.time.Duration max) {
        if (r.decision() == Decision.ALLOW) return;
        // The incident's rows are read once: what is in flight is this process's own memory, watched without the store.
        List<String> inFlight = store.ofIncident(r.incidentId()).stream()
                .filter(o -> o.decision() == Decision.ALLOW && o.status() == ActionStatus.PLANNED).map(ActionRecord::id).toList();
        long until = System.nanoTime() + max.toNanos();
        while (inFlight.stream().anyMatch(running::contains) && System.nanoTime() < until) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public boolean leads() {
        return leadership.isLeader();
    }

    ActionStore store() {
        return store;
    }

    AuditLog audit() {
        return audit;
    }

    Database database() {
        return database;
    }

    String capture(ActionKind kind, String target) {
        Mitigation m = mitigations.get(kind);
        return m == null ? null : captureQuietly(m, target);
    }

    private static String captureQuietly(Mitigation m, String target) {
        try {
            return m.capture(target);
        } catch (KubernetesClientException e) {
            LOG.warnf("could not read %s before planning %s: %s", target, m.kind().wireName(), e.getMessage());
            return null;
        }
    }

    static Map<String, Object> payload(ActionRecord r, Outcome outcome) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("action", r.id());
        p.put("kind", r.kind().wireName());
        p.put("target", r.target());
        p.put("dryRun", r.dryRun());
        p.put("status", r.status().name().toLowerCase());
        if (outcome != null) {
            p.put("detail", outcome.detail());
        }
        return p;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
