package io.acceltriage.action;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;

/**
 * Approvals for the page tests until the real implementation is merged: it is a {@link DefaultBean},
 * so the production bean replaces it as soon as there is one, and the browser test then drives that.
 * It does the least an approval must: record the decision in the audit log and, when approved, hand
 * the action to the executor.
 */
@DefaultBean
@ApplicationScoped
class StandInApprovals implements Approvals {

    private final Database database;
    private final AuditLog audit;
    private final Executor executor;
    private final ActionStore store;

    StandInApprovals(Database database, AuditLog audit, Executor executor) {
        this.database = database;
        this.audit = audit;
        this.executor = executor;
        this.store = new ActionStore(database);
    }

    @Override
    public Result approve(String actionId, String approver) {
        Optional<ActionRecord> planned = decide(actionId, approver, ActionStatus.PLANNED, "approved by " + approver);
        if (planned.isEmpty()) {
            return new Result(false, actionId, null, "Action " + actionId + " is not waiting for approval.");
        }
        ActionRecord done = executor.resume(planned.get());
        return new Result(true, actionId, done.status(), "Approved by " + approver + ": " + done.kind().wireName() + " "
                + done.target() + " " + done.status().name().toLowerCase() + ".");
    }

    @Override
    public Result reject(String actionId, String approver, String reason) {
        Optional<ActionRecord> r = decide(actionId, approver, ActionStatus.REJECTED, reason);
        return r.map(a -> new Result(true, actionId, a.status(), "Rejected by " + approver + "."))
                .orElseGet(() -> new Result(false, actionId, null, "Action " + actionId + " is not waiting for approval."));
    }

    private Optional<ActionRecord> decide(String actionId, String approver, ActionStatus next, String detail) {
        return database.transaction(tx -> {
            Optional<ActionRecord> pending = store.withStatus(ActionStatus.AWAITING_APPROVAL).stream()
                    .filter(a -> a.id().equals(actionId)).findFirst();
            if (pending.isEmpty()) {
                return Optional.<ActionRecord>empty();
            }
            ActionRecord updated = store.update(tx, pending.get(), next, detail);
            audit.append(tx, updated.incidentId(), AuditKind.APPROVAL, approver, Map.of("action", actionId,
                    "decision", next == ActionStatus.PLANNED ? "approved" : "rejected", "detail", detail));
            return Optional.of(updated);
        });
    }
}
