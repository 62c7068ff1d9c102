package io.acceltriage.history;

import java.time.Instant;
import java.util.List;

/** A GPU with at least the policy's number of fatal XIDs within the window, its faults oldest first. */
public record RepeatOffender(String node, String gpu, String uuid, List<GpuFault> faults) {

    public Instant last() {
        return faults.get(faults.size() - 1).at();
    }
}
