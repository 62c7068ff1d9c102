package io.acceltriage.audit;

import com.fasterxml.jackson.annotation.JsonValue;

/** What an audit record says happened. The wire name is what the API and exports show. */
public enum AuditKind {
    ALERT_RECEIVED("alert.received"),
    ALERT_FILED("alert.filed"),
    ALERT_SET_ASIDE("alert.set-aside"),
    INCIDENT_OPENED("incident.opened"),
    INCIDENT_RESOLVED("incident.resolved"),
    /** A person's decision moved the incident to another state (approved and ran, rejected, undone). */
    INCIDENT_STATE("incident.state"),
    EVIDENCE_COLLECTED("evidence.collected"),
    DIAGNOSIS("diagnosis"),
    PROPOSAL("proposal"),
    VERDICT("verdict"),
    ACTION_STARTED("action.started"),
    ACTION_FINISHED("action.finished"),
    ACTION_FAILED("action.failed"),
    VERIFICATION("verification"),
    APPROVAL("approval"),
    ESCALATION("escalation"),
    NOTIFICATION("notification"),
    MODEL_CALL("model.call"),
    /** A tool the model called: its arguments, outcome and what it read back (redacted, bounded). */
    MODEL_TOOL("model.tool"),
    GUARDRAIL("guardrail"),
    SILENCE("silence"),
    ACCESS_DENIED("access.denied"),
    /** Retention: records up to a point were deleted; the record carries the last deleted one's hash. */
    AUDIT_PRUNED("audit.pruned"),
    /** Retention of the chat outbox: how many delivered or given-up messages the leader deleted. */
    CHAT_OUTBOX_SWEPT("chat.outbox.swept"),
    POLICY_RELOADED("policy.reloaded"),
    POLICY_REJECTED("policy.rejected"),
    BREAKER_TRIPPED("breaker.tripped"),
    BREAKER_RESET("breaker.reset"),
    /** An incident missed a recovery objective of the policy; recorded once per incident and objective. */
    OBJECTIVE_BREACHED("objective.breached"),
    /** A fault drill ran: its stage table against the recovery objectives, and whether it passed. */
    DRILL_FINISHED("drill.finished"),
    /** What an incident's fault did to the service (latency, failed requests, training time), measured once its window passed. */
    IMPACT_MEASURED("impact.measured"),
    /** An incident's actions were forced into dry run (a shadow drill's incident): why, and which verdicts it changed. */
    DRY_RUN_FORCED("dry-run.forced"),
    /** A watched node-agent rollout was held at its new revision for its canary nodes to be validated. */
    ROLLOUT_HELD("rollout.held"),
    /** A canary node's DCGM diagnostic on a held rollout's new revision: passed or not, in DCGM's words. */
    ROLLOUT_CANARY("rollout.canary"),
    /** Every canary passed: the held rollout was given back its update strategy and goes on. */
    ROLLOUT_RELEASED("rollout.released"),
    /** From this record on, the chain is hashed under the key its fingerprint names (a new or rotated key). */
    AUDIT_KEYED("audit.keyed");

    private final String wireName;

    AuditKind(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    public static AuditKind fromWireName(String name) {
        for (AuditKind kind : values()) {
            if (kind.wireName.equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown audit kind '" + name + "'");
    }
}
