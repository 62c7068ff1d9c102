package io.acceltriage.action;

/**
 * Decisions of people on actions that wait for approval. Every entry point (REST, the page, Slack,
 * Teams) goes through this one interface, so the approver check, the re-check of preconditions and
 * the audit happen the same way whatever the channel.
 */
public interface Approvals {

    /** The outcome told back to the person: what happened to the action, or why nothing did. */
    record Result(boolean accepted, String actionId, ActionStatus status, String message, Refusal refusal) {

        Result(boolean accepted, String actionId, ActionStatus status, String message) {
            this(accepted, actionId, status, message, accepted ? Refusal.NONE : status == null ? Refusal.UNKNOWN_ACTION : Refusal.CONFLICT);
        }
    }

    /** Why nothing happened, for the channel to answer in its own terms (HTTP 404, 403, 409). */
    enum Refusal { NONE, UNKNOWN_ACTION, NOT_AN_APPROVER, CONFLICT }

    /** Approves a pending action as {@code approver} (a Slack user id, a Teams AAD object id, a token's name). */
    Result approve(String actionId, String approver);

    Result reject(String actionId, String approver, String reason);
}
