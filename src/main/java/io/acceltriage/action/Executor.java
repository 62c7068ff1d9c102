package io.acceltriage.action;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
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
import org.jboss.logging.Logger;

/**
 * Carries out verdicts. The only class that changes the cluster. Each action is recorded PLANNED
 * (with its audit record) before it runs and updated after, under an idempotency key of incident,
 * kind and target, so a re-delivered alert or a retry never applies it twice.
 */
public final class Executor {

    private static final Logger LOG = Logger.getLogger(Executor.class);
    static final int ATTEMPTS = 3;

    private final Database database;
    private final AuditLog audit;
    private final ActionStore store;
    private final Map<ActionKind, Mitigation> mitigations = new EnumMap<>(ActionKind.class);

    public Executor(KubernetesClient client, Database database, AuditLog audit) {
        this.database = database;
        this.audit = audit;
        this.store = new ActionStore(database);
        for (Mitigation m : List.of(new CordonNode(client), new RestartPod(client))) {
            mitigations.put(m.kind(), m);
        }
    }

    /** Records the proposal's verdict as an action and, when allowed, runs it. */
    public ActionRecord carryOut(String incidentId, Proposal proposal, Verdict verdict) {
        String key = incidentId + "|" + proposal.name();
        ActionStatus initial = verdict.decision() == Decision.APPROVE ? ActionStatus.AWAITING_APPROVAL
                : verdict.decision() == Decision.DENY ? ActionStatus.SKIPPED : ActionStatus.PLANNED;
        ActionRecord[] created = new ActionRecord[1];
        Optional<ActionRecord> existing = database.inTransaction(c -> {
            Optional<ActionRecord> found = store.byKey(c, key);
            if (found.isPresent()) {
                return found;
            }
            created[0] = store.insert(c, key, incidentId, proposal.kind(), proposal.target(), verdict.decision(), initial,
                    verdict.dryRun(), String.join("; ", verdict.reasons()));
            if (initial == ActionStatus.PLANNED) {
                audit.append(c, incidentId, AuditKind.ACTION_STARTED, Actors.AGENT, payload(created[0], null));
            }
            return Optional.empty();
        });
        if (existing.isPresent()) {
            return existing.get();
        }
        ActionRecord record = created[0];
        return record.status() == ActionStatus.PLANNED ? run(record) : record;
    }

    /** Runs a PLANNED action and records how it ended. Also used to finish actions a crash interrupted. */
    ActionRecord run(ActionRecord record) {
        Mitigation m = mitigations.get(record.kind());
        Outcome outcome;
        if (m == null) {
            outcome = Outcome.failed(record.kind().wireName() + " is not carried out by this version; a person must do it", false);
        } else {
            outcome = attempt(m, record);
        }
        ActionStatus status = outcome.success() ? (record.dryRun() ? ActionStatus.DRY_RUN : ActionStatus.SUCCEEDED)
                : ActionStatus.FAILED;
        return database.inTransaction(c -> {
            ActionRecord updated = store.update(c, record, status, outcome.detail());
            audit.append(c, record.incidentId(), outcome.success() ? AuditKind.ACTION_FINISHED : AuditKind.ACTION_FAILED,
                    Actors.AGENT, payload(updated, outcome));
            return updated;
        });
    }

    private Outcome attempt(Mitigation m, ActionRecord record) {
        Outcome last = null;
        for (int i = 1; i <= ATTEMPTS; i++) {
            try {
                last = m.apply(record.target(), record.dryRun());
            } catch (KubernetesClientException e) {
                boolean retryable = e.getCode() == 409 || e.getCode() == 429 || e.getCode() >= 500 || e.getCode() == 0;
                last = Outcome.failed("Kubernetes API answered " + (e.getCode() == 0 ? "no response" : "HTTP " + e.getCode())
                        + ": " + e.getMessage(), retryable);
            }
            if (last.success() || !last.retryable()) {
                return last;
            }
            LOG.warnf("%s %s attempt %d failed: %s", record.kind().wireName(), record.target(), i, last.detail());
            sleep(200L << (i - 1));
        }
        return Outcome.failed(last.detail() + " (gave up after " + ATTEMPTS + " attempts)", false);
    }

    public List<ActionRecord> ofIncident(String incidentId) {
        return store.ofIncident(incidentId);
    }

    /** Finishes an action a crash left PLANNED: mitigations are idempotent, so running it again is safe. */
    public ActionRecord resume(ActionRecord record) {
        return run(record);
    }

    /** Actions a crash left PLANNED. */
    public List<ActionRecord> interrupted() {
        return store.withStatus(ActionStatus.PLANNED);
    }

    private static Map<String, Object> payload(ActionRecord r, Outcome outcome) {
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
