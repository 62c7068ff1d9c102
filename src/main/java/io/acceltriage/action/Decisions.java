package io.acceltriage.action;

import io.acceltriage.action.Approvals.Refusal;
import io.acceltriage.action.Approvals.Result;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.policy.Breaker;
import io.acceltriage.policy.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Every decision a person takes — approve, reject, undo, reset the breaker — from every channel (REST,
 * the pages, Slack, Teams, approval links), with one rule: the decider is the identity the channel
 * verified (a signed-in principal, a signature-checked chat user), never a name a request carries, and
 * must be named in the current policy's {@code approvers}. A refusal is audited as that identity; a
 * decision is audited as that identity by the step that carries it out.
 */
public final class Decisions {

    private final Approvals approvals;
    private final Executor executor;
    private final Breaker breaker;
    private final Supplier<Policy> policy;
    private final AuditLog audit;
    private final java.util.function.Consumer<String> decidedOn;

    /** {@code decidedOn} hears the incident of every action a person decided on, so its state can follow. */
    public Decisions(Approvals approvals, Executor executor, Breaker breaker, Supplier<Policy> policy, AuditLog audit,
            java.util.function.Consumer<String> decidedOn) {
        this.decidedOn = decidedOn;
        this.approvals = approvals;
        this.executor = executor;
        this.breaker = breaker;
        this.policy = policy;
        this.audit = audit;
    }

    /** Whether {@code verified} may decide under the policy in force now (it reloads while the service runs). */
    public boolean mayDecide(String verified) {
        return verified != null && !verified.isBlank() && policy.get().approversOrEmpty().contains(verified);
    }

    /**
     * Whether {@code verified} may do {@code attempted} (a decision outside the actions: a silence);
     * a refusal is audited as them, like every other.
     */
    public boolean permits(String verified, String attempted) {
        return refusal(verified, attempted, null).isEmpty();
    }

    public Result approve(String verified, String actionId) {
        return refusal(verified, "approve", actionId).orElseGet(() -> followed(approvals.approve(actionId, verified)));
    }

    public Result reject(String verified, String actionId, String reason) {
        return refusal(verified, "reject", actionId)
                .orElseGet(() -> followed(approvals.reject(actionId, verified, reason)));
    }

    /** Reverts a finished action where its mitigation has an undo (uncordon). */
    public Result undo(String verified, String actionId) {
        var refused = refusal(verified, "undo", actionId);
        if (refused.isPresent()) return refused.get();
        try {
            boolean leads = executor.leads();
            ActionRecord r = executor.undo(actionId, verified);
            if (!leads && r.status() != ActionStatus.UNDONE) {
                return new Result(true, actionId, r.status(), "undo accepted: the replica that holds the actions lease carries it out"
                        + " within a few seconds", Refusal.NONE);
            }
            boolean undone = r.status() == ActionStatus.UNDONE;
            decidedOn.accept(r.incidentId());
            return new Result(undone, actionId, r.status(), undone ? "undone: " + r.detail() : "the undo failed: " + r.detail(),
                    undone ? Refusal.NONE : Refusal.CONFLICT);
        } catch (IllegalArgumentException e) {
            return new Result(false, actionId, null, e.getMessage(), Refusal.UNKNOWN_ACTION);
        } catch (IllegalStateException e) {
            return new Result(false, actionId, executor.find(actionId).map(ActionRecord::status).orElse(null), e.getMessage(),
                    Refusal.CONFLICT);
        }
    }

    /** Resets the circuit breaker; {@code accepted} says whether it was tripped (a reset of a closed breaker is no error). */
    public Result resetBreaker(String verified) {
        var refused = refusal(verified, "reset the circuit breaker", null);
        if (refused.isPresent()) return refused.get();
        boolean wasTripped = breaker.reset(verified);
        return new Result(wasTripped, null, null, wasTripped ? "circuit breaker reset by " + verified + "; mitigations may run again"
                : "the circuit breaker is not tripped; nothing to reset", Refusal.NONE);
    }

    private java.util.Optional<Result> refusal(String verified, String attempted, String actionId) {
        if (mayDecide(verified)) {
            return java.util.Optional.empty();
        }
        String who = verified == null || verified.isBlank() ? "unknown" : verified;
        Map<String, Object> p = new LinkedHashMap<>();
        if (actionId != null) p.put("action", actionId);
        p.put("attempted", attempted);
        p.put("by", who);
        p.put("reason", "not an approver of policy " + policy.get().name());
        audit.append(incidentOf(actionId), AuditKind.ACCESS_DENIED, who, p);
        return java.util.Optional.of(new Result(false, actionId, null, "sorry, " + (who.equals("unknown") ? "an unnamed caller" : who)
                + " is not among the approvers of policy " + policy.get().name()
                + "; ask one of them, or an administrator to add you to its approvers list", Refusal.NOT_AN_APPROVER));
    }

    /** A decision that reached the action (whatever became of it) may have moved its incident on. */
    private Result followed(Result r) {
        if (r.refusal() == Refusal.NONE || r.refusal() == Refusal.CONFLICT) {
            decidedOn.accept(incidentOf(r.actionId()));
        }
        return r;
    }

    private String incidentOf(String actionId) {
        return actionId == null ? null : executor.find(actionId).map(ActionRecord::incidentId).orElse(null);
    }
}
