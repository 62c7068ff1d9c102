package io.acceltriage.policy;

import java.util.List;

/**
 * A mitigation someone wants: the rules planner or the model. It is only a wish until the policy
 * engine gives it a verdict and the executor carries it out.
 */
public record Proposal(ActionKind kind, String target, String reason, List<String> evidenceIds, String proposedBy) {

    public String name() {
        return kind.wireName() + ":" + target;
    }
}
