package io.acceltriage.chat;

import io.acceltriage.action.Approvals;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.policy.CircuitBreakerControl;
import io.acceltriage.policy.Policy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What chat may decide: approve or reject a pending action, reset the circuit breaker. Only for the
 * people the policy's {@code approvers} names; everyone else is told, politely, and the refusal is audited.
 */
@ApplicationScoped
public class ChatDecisions {

    static final String NO_APPROVALS = "approvals are not available in this build";
    static final String NO_BREAKER = "the circuit breaker cannot be reset from chat in this build";

    private final Policy policy;
    private final Instance<Approvals> approvals;
    private final Instance<CircuitBreakerControl> breaker;
    private final AuditLog audit;

    ChatDecisions(Policy policy, Instance<Approvals> approvals, Instance<CircuitBreakerControl> breaker, AuditLog audit) {
        this.policy = policy;
        this.approvals = approvals;
        this.breaker = breaker;
        this.audit = audit;
    }

    public boolean mayApprove(ChatUser user) {
        return policy.approvers() != null && policy.approvers().contains(user.id());
    }

    /** Approves or rejects through {@link Approvals}, for approvers only. */
    public String decide(ChatUser user, String actionId, boolean approve, String reason) {
        String verb = approve ? "approve" : "reject";
        if (!mayApprove(user)) {
            refused(user, verb + " " + actionId);
            return "Sorry" + display(user) + ", only the people the policy names as approvers may " + verb
                    + " actions. Ask one of them, or the on-call lead.";
        }
        if (!approvals.isResolvable()) {
            return NO_APPROVALS;
        }
        Approvals.Result r = approve ? approvals.get().approve(actionId, user.id())
                : approvals.get().reject(actionId, user.id(), reason == null ? "rejected in " + user.platform() : reason);
        return (r.accepted() ? (approve ? "Approved " : "Rejected ") : "Nothing done for ") + actionId
                + (r.status() == null ? "" : " (now " + r.status().name().toLowerCase() + ")")
                + (r.message() == null ? "" : ": " + r.message());
    }

    String resetBreaker(ChatUser user) {
        if (!mayApprove(user)) {
            refused(user, "reset breaker");
            return "Sorry" + display(user) + ", only the people the policy names as approvers may reset the circuit breaker.";
        }
        if (!breaker.isResolvable()) {
            return NO_BREAKER;
        }
        CircuitBreakerControl b = breaker.get();
        if (!b.tripped()) {
            return "The circuit breaker is not tripped; nothing to reset.";
        }
        b.reset(user.id());
        return "Circuit breaker reset by " + user.id() + "; mitigations may run again.";
    }

    private void refused(ChatUser user, String asked) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("platform", user.platform());
        p.put("user", user.id());
        p.put("asked", asked);
        p.put("reason", "not an approver in the policy");
        audit.append(null, AuditKind.ACCESS_DENIED, user.id(), p);
    }

    private static String display(ChatUser user) {
        return user.name() == null || user.name().isBlank() ? "" : " " + user.name();
    }
}
