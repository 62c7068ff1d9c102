package io.acceltriage.policy;

import java.time.Instant;
import java.util.List;

/** Actions already taken, for budgets, cooldowns and the circuit breaker. The actions table is the truth. */
public interface ActionHistory {

    /** An action that touched (or tried to touch) the cluster. */
    record Past(ActionKind kind, String target, Instant at) {}

    /** Actions started at or after {@code since}, oldest first. */
    List<Past> since(Instant since);

    /**
     * Every action recorded at or after {@code since}, whatever became of it (denied, waiting,
     * rejected included): how often something was wanted, e.g. a GPU's fatal XIDs that asked for a reset.
     */
    default List<Past> proposedSince(Instant since) {
        return since(since);
    }

    /** No actions: replay, and tests of a single decision. */
    ActionHistory NONE = since -> List.of();
}
