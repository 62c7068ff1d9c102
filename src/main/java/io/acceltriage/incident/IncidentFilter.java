package io.acceltriage.incident;

import java.time.Instant;

/** Filters for listing incidents; null means "any". {@code before} is the cursor (opened before it). */
public record IncidentFilter(IncidentState state, String family, String node, String namespace,
        Instant since, Instant before, int limit) {

    public static IncidentFilter latest(int limit) {
        return new IncidentFilter(null, null, null, null, null, null, limit);
    }
}
