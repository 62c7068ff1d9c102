package io.acceltriage.policy;

import java.time.Instant;
import java.util.List;

/** Actions already taken, for budgets, cooldowns and the circuit breaker. The actions table is the truth. */
public interface ActionHistory {

    /** An action that touched (or tried to touch) the cluster. */
    record Past(ActionKind kind, String target, Instant at) {}

    /** Actions started at or after {@code since}, oldest first. */
    List<Past> since(Instant since);

    /** No actions: replay, and tests of a single decision. */
    ActionHistory NONE = since -> List.of();
}
