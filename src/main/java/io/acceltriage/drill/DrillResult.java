package io.acceltriage.drill;

import java.time.Instant;
import java.util.List;

/**
 * What a drill found: per expected stage (and per objective bounding it) how long the stage took and
 * whether that met the objective; {@code passed} only when no objective was breached and every
 * expected stage happened. {@code problem} says why a drill could not run or follow its incident.
 * {@code mode}: {@code sandbox} (the fault injected into the sandbox) or {@code shadow} (its alert only, the
 * incident forced into dry run: the mitigate stage is when the action that would have mitigated finished as a dry run).
 */
public record DrillResult(String drill, String by, Instant startedAt, Instant finishedAt, String incidentId, String family,
        boolean passed, List<Stage> stages, String problem, String mode) {

    public static final String SANDBOX = "sandbox";
    public static final String SHADOW = "shadow";

    public DrillResult {
        // Results recorded before shadow drills existed were all on the sandbox.
        mode = mode == null ? SANDBOX : mode;
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean shadow() {
        return SHADOW.equals(mode);
    }

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
