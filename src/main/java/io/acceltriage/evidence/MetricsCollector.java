package io.acceltriage.evidence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a node's samples into metric evidence. Only metrics a toolset knows become evidence, and of
 * those the readings that say something: a fault-bearing metric off zero or changed, and the
 * utilisation and memory of GPUs held by pods.
 */
final class MetricsCollector {

    private final MetricsSource source;
    private final Toolsets toolsets;

    MetricsCollector(MetricsSource source, Toolsets toolsets) {
        this.source = source;
        this.toolsets = toolsets;
    }

    record Result(List<Observation> observations, int samplesRead) {}

    Result collect(String node) throws MetricsSource.EvidenceUnavailable {
        NodeSamples samples = source.read(node);
        Map<String, Double> before = new HashMap<>();
        for (Sample s : samples.tenMinutesAgo()) {
            before.put(key(s), s.value());
        }
        List<Observation> out = new ArrayList<>();
        for (Sample s : samples.now()) {
            Optional<Toolset.Tool> tool = toolsets.forMetric(s.name());
            if (tool.isEmpty()) continue;
            Double previous = before.get(key(s));
            boolean faultMetric = tool.get().fault() != null || toolsets.isSummand(s.name());
            boolean held = s.label("pod") != null && !s.label("pod").isEmpty();
            boolean idleRule = tool.get().fault() != null && tool.get().fault().when() == Toolset.Condition.IDLE;
            boolean interesting = faultMetric && !idleRule ? (s.value() != 0 || (previous != null && previous != s.value())) : held;
            if (!interesting) continue;
            String device = s.device();
            // A serving or training series is the workload's own account of itself, whoever scraped it.
            Trust trust = toolsets.servedByTenant(s.name()) ? Trust.TENANT : null;
            out.add(new Observation(Source.METRICS, node + (device == null ? "" : " device " + device) + " " + s.name() + " = "
                    + format(s.value()) + (previous == null ? "" : " (10 min ago " + format(previous) + ")")
                    + (held ? " [" + s.label("namespace") + "/" + s.label("pod") + "]" : ""),
                    new Facts.MetricReading(node, device, s.label("UUID"), blankToNull(s.label("namespace")),
                            blankToNull(s.label("pod")), s.name(), s.value(), previous, blankToNull(s.label("xid"))),
                    trust, blankToNull(s.label("instance"))));
        }
        return new Result(out, samples.now().size());
    }

    /** A series' identity: its name and label set, so per-XID counts and per-link counters stay apart. */
    private static String key(Sample s) {
        return s.name() + new java.util.TreeMap<>(s.labels());
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    static String format(double v) {
        return v == Math.rint(v) && !Double.isInfinite(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
