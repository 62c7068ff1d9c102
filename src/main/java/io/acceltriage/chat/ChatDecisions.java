package io.acceltriage.chat;

import io.acceltriage.action.Approvals;
import io.acceltriage.action.Decisions;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What chat may decide: approve or reject a pending action, reset the circuit breaker. The rule (who
 * may, the audit of a refusal) is {@link Decisions}', the same for every channel; this class only
 * says the outcome in chat's words. The user is the one the platform's signature vouches for.
 */
@ApplicationScoped
public class ChatDecisions {

    private final Decisions decisions;

    ChatDecisions(Decisions decisions) {
        this.decisions = decisions;
    }

    public boolean mayApprove(ChatUser user) {
        return decisions.mayDecide(user.id());
    }

    /** Approves or rejects as {@code user}, who must be named in the policy's approvers. */
    public String decide(ChatUser user, String actionId, boolean approve, String reason) {
        String verb = approve ? "approve" : "reject";
        Approvals.Result r = approve ? decisions.approve(user.id(), actionId)
                : decisions.reject(user.id(), actionId, reason == null ? "rejected in " + user.platform() : reason);
        if (r.refusal() == Approvals.Refusal.NOT_AN_APPROVER) {
            return "Sorry" + display(user) + ", only the people the policy names as approvers may " + verb
                    + " actions. Ask one of them, or the on-call lead.";
        }
        return (r.accepted() ? (approve ? "Approved " : "Rejected ") : "Nothing done for ") + actionId
                + (r.status() == null ? "" : " (now " + r.status().name().toLowerCase() + ")")
                + (r.message() == null ? "" : ": " + r.message());
    }

    String resetBreaker(ChatUser user) {
        Approvals.Result r = decisions.resetBreaker(user.id());
        if (r.refusal() == Approvals.Refusal.NOT_AN_APPROVER) {
            return "Sorry" + display(user) + ", only the people the policy names as approvers may reset the circuit breaker.";
        }
        return r.accepted() ? "Circuit breaker reset by " + user.id() + "; mitigations may run again."
                : "The circuit breaker is not tripped; nothing to reset.";
    }

    private static String display(ChatUser user) {
        return user.name() == null || user.name().isBlank() ? "" : " " + user.name();
    }
}
