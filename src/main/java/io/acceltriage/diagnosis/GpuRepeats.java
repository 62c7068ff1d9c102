package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.time.Duration;
import java.util.List;

/** What {@code knowledge/gpu-history.yaml} says makes an XID repeating on one GPU the GPU's, across incidents. */
public record GpuRepeats(Repeats repeats) {

    public record Repeats(List<Integer> xids, int processes, String window) {}

    public static GpuRepeats load() {
        GpuRepeats r = DataFiles.resource("knowledge/gpu-history.yaml", GpuRepeats.class);
        if (r.repeats() == null || r.repeats().xids() == null || r.repeats().processes() < 2 || r.repeats().window() == null
                || !r.repeats().window().matches("\\d{1,4}[hd]")) {
            throw new IllegalStateException("knowledge/gpu-history.yaml: repeats needs xids, processes ≥ 2 and a window like 72h or 7d");
        }
        return r;
    }

    public boolean counts(int xid) {
        return repeats.xids().contains(xid);
    }

    public int processes() {
        return repeats.processes();
    }

    /** How far back the fault history counts. */
    public Duration window() {
        String w = repeats.window();
        long n = Long.parseLong(w.substring(0, w.length() - 1));
        return w.endsWith("d") ? Duration.ofDays(n) : Duration.ofHours(n);
    }
}
