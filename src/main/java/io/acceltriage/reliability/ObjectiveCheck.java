package io.acceltriage.reliability;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * One incident measured against one recovery objective: {@code seconds} is the stage's time when it
 * happened, else the time elapsed so far; {@code gpuHoursLost} is the pool's loss in the 7 days up to
 * the incident, for a GPU-hours budget. {@code within} and {@code gpuHoursPerWeek} are the bound.
 */
public record ObjectiveCheck(String objective, String stage, Double withinSeconds, Double gpuHoursPerWeek, Status status,
        Double seconds, Double gpuHoursLost) {

    public enum Status {
        /** The stage happened within the bound, or the pool stayed within its budget. */
        MET,
        /** The stage took longer, has not happened and the bound has passed, or the pool's budget is spent. */
        BREACHED,
        /** The stage has not happened yet and there is still time. */
        PENDING,
        /** The incident ended without needing the stage (or its start is unknown): nothing to measure. */
        SKIPPED;

        @JsonValue
        public String wireName() {
            return name().toLowerCase();
        }
    }

    public boolean breached() {
        return status == Status.BREACHED;
    }
}
