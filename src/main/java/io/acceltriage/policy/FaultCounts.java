package io.acceltriage.policy;

import java.time.Instant;
import java.util.List;

/**
 * The fault history as the repeat-offender rule reads it: when a GPU had fatal XIDs, each incident's
 * sighting of an XID counted once. The same record the fleet page marks repeat offenders from, so the
 * policy and the page never disagree about which GPU is one.
 */
public interface FaultCounts {

    /** The times of the fatal XIDs recorded on GPU {@code gpu} (index or UUID) of {@code node} at or after {@code since}, oldest first. */
    List<Instant> fatalXids(String node, String gpu, Instant since);

    /** The same, for every GPU of {@code node} that had one: GPU → times. None unless the history says so. */
    default java.util.Map<String, List<Instant>> fatalXidsByGpu(String node, Instant since) {
        return java.util.Map.of();
    }

    /** No history: replay (each scenario stands alone) and tests of a single decision. */
    FaultCounts NONE = (node, gpu, since) -> List.of();
}
