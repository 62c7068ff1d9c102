package io.acceltriage.policy;

import java.util.List;

/**
 * A mitigation someone wants: the rules planner or the model. It is only a wish until the policy
 * engine gives it a verdict and the executor carries it out. {@code atCheckpoint}: part of taking a
 * training gang off a degraded (not failed) device at its next checkpoint, or of emptying a node whose
 * device is due for replacement — the gang's restart, and the node's drain, wait for that checkpoint (at
 * most the policy's {@code checkpoints.maxWait}), and a person approves them.
 */
public record Proposal(ActionKind kind, String target, String reason, List<String> evidenceIds, String proposedBy,
        boolean atCheckpoint) {

    /** {@link #proposedBy} of the deterministic rules planner's proposals (the policy trusts their pairing of steps). */
    public static final String BY_RULES = "rules";

    public Proposal(ActionKind kind, String target, String reason, List<String> evidenceIds, String proposedBy) {
        this(kind, target, reason, evidenceIds, proposedBy, false);
    }

    public String name() {
        return kind.wireName() + ":" + target;
    }
}
