package io.acceltriage.drill;

import java.time.Instant;
import java.util.List;

/**
 * What a drill found: per expected stage (and per objective bounding it) how long the stage took and
 * whether that met the objective; {@code passed} only when no objective was breached and every
 * expected stage happened. {@code problem} says why a drill could not run or follow its incident.
 */
public record DrillResult(String drill, String by, Instant startedAt, Instant finishedAt, String incidentId, String family,
        boolean passed, List<Stage> stages, String problem) {

    /**
     * {@code status}: met or breached (against {@code objective}), reached (no objective bounds the
     * stage) or missed (it did not happen before the drill's timeout).
     */
    public record Stage(String stage, Double tookSeconds, String objective, Double withinSeconds, String status) {

        boolean failed() {
            return "breached".equals(status) || "missed".equals(status);
        }
    }
}
