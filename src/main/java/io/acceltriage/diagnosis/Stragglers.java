package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fail-slow: a replica or rank markedly slower than the same workload's pods on other nodes (the
 * subject node's for a node incident, any member for a workload's), as {@code knowledge/stragglers.yaml} defines it. The finding names the node and the GPU
 * the slow pod holds (from the device exporter's pod label). It is a degradation (slow, not broken):
 * alone, resting on the tenant's own series, it escalates; a platform device finding on the same GPU
 * supports it and is cited with it.
 */
record Stragglers(double weight, double corroboratedWeight, List<Rule> readings) {

    /** The group of the finding: one reason however many readings show it. */
    static final String GROUP = "straggler";

    record Rule(String metric, String slower, double ratio, int minPeers, Double floor) {
        boolean higherIsSlower() {
            return "higher".equals(slower);
        }
    }

    static Stragglers load() {
        return validated("knowledge/stragglers.yaml", DataFiles.resource("knowledge/stragglers.yaml", Stragglers.class));
    }

    static Stragglers validated(String file, Stragglers s) {
        require(file, s.weight() > 0 && s.weight() < Classifier.FAULT_THRESHOLD + 0.2 && s.corroboratedWeight() > s.weight()
                && s.corroboratedWeight() <= 1, "weight must be in (0, 0.5) and corroboratedWeight above it, at most 1");
        require(file, s.readings() != null && !s.readings().isEmpty(), "readings: at least one metric to compare with peers");
        for (Rule r : s.readings()) {
            require(file, r.metric() != null && !r.metric().isBlank(), "every reading needs its metric");
            require(file, "higher".equals(r.slower()) || "lower".equals(r.slower()),
                    r.metric() + ": slower must be higher or lower, got '" + r.slower() + "'");
            require(file, r.ratio() > 1, r.metric() + ": ratio must be above 1, got " + r.ratio());
            require(file, r.minPeers() >= 2, r.metric() + ": minPeers must be at least 2 (a median of one peer is that peer)");
        }
        return s;
    }

    private static void require(String file, boolean ok, String reason) {
        if (!ok) throw new DataFiles.InvalidDataFile(file + ": " + reason);
    }

    /** The straggler findings of the bundle; {@code others} are the findings so far (platform device findings corroborate). */
    List<Finding> of(EvidenceBundle b, List<Finding> others) {
        List<Finding> out = new ArrayList<>();
        for (Rule rule : readings) {
            for (Evidence e : b.items()) {
                // Any member the bundle read: the subject node's for a node or pod incident, every node's for a workload's.
                if (!(e.fact() instanceof Facts.MetricReading suspect) || !rule.metric().equals(suspect.metric())
                        || suspect.node() == null || suspect.pod() == null) continue;
                Optional<Workload> workload = b.workloads().stream().filter(w -> Objects.equals(w.namespace(), suspect.namespace())
                        && w.podsOnNode().contains(suspect.pod())).findFirst();
                List<Evidence> peers = b.items().stream().filter(p -> p.fact() instanceof Facts.MetricReading m && m.metric().equals(rule.metric())
                        && m.pod() != null && !m.pod().equals(suspect.pod()) && m.node() != null && !suspect.node().equals(m.node())
                        && Objects.equals(m.namespace(), suspect.namespace())
                        && workload.map(w -> w.nodes().contains(m.node())).orElse(true)).toList();
                if (peers.size() < rule.minPeers()) continue;
                double median = median(peers.stream().mapToDouble(p -> ((Facts.MetricReading) p.fact()).value()).sorted().toArray());
                double v = suspect.value();
                boolean slow = rule.higherIsSlower()
                        ? v >= rule.ratio() * median && (rule.floor() == null || v >= rule.floor()) && v > 0
                        : median > 0 && v * rule.ratio() <= median;
                if (!slow) continue;
                Set<String> gpus = gpusOf(b, suspect);
                List<String> ids = new ArrayList<>();
                ids.add(e.id());
                peers.forEach(p -> ids.add(p.id()));
                List<Finding> support = corroborating(b, others, suspect.node(), gpus);
                support.forEach(f -> f.evidenceIds().forEach(id -> { if (!ids.contains(id)) ids.add(id); }));
                String times = String.format(Locale.ROOT, "%.1f×", rule.higherIsSlower() ? v / median : median / Math.max(v, 1e-9));
                String where = (gpus.isEmpty() ? "a GPU of " : "GPU " + String.join(", ", gpus) + " of ") + suspect.node();
                String cause = "fail-slow: " + suspect.namespace() + "/" + suspect.pod() + " on " + where + " is " + times + " slower than the median of its "
                        + peers.size() + " peers on other nodes (" + rule.metric() + " " + fmt(v) + " against " + fmt(median) + ")"
                        + (support.isEmpty()
                                ? "; reported by the workload only, no platform reading of that GPU shows a fault: check the GPU (dcgmi diag) before trusting the node"
                                : "; the GPU's exporter shows " + support.get(0).cause() + ": the device is slowing the workload");
                out.add(new Finding(Family.DEVICE, support.isEmpty() ? weight : corroboratedWeight, cause, List.copyOf(ids), GROUP,
                        false, true, false, false));
            }
        }
        return out;
    }

    /** The GPUs the slow pod holds, as the device exporter labels them with their pod. */
    private static Set<String> gpusOf(EvidenceBundle b, Facts.MetricReading suspect) {
        Set<String> out = new TreeSet<>();
        for (Evidence e : b.items()) {
            if (e.platform() && e.fact() instanceof Facts.MetricReading m && m.device() != null && suspect.node().equals(m.node())
                    && suspect.pod().equals(m.pod()) && Objects.equals(suspect.namespace(), m.namespace())) {
                out.add(m.device());
            }
        }
        return out;
    }

    /** Platform device findings resting on a reading of one of those GPUs. */
    private static List<Finding> corroborating(EvidenceBundle b, List<Finding> others, String node, Set<String> gpus) {
        if (gpus.isEmpty()) return List.of();
        return others.stream().filter(f -> f.family() == Family.DEVICE && !GROUP.equals(f.group()))
                .filter(f -> f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).anyMatch(e -> e.platform()
                        && e.fact() instanceof Facts.MetricReading m && node.equals(m.node()) && gpus.contains(m.device())))
                .sorted((x, y) -> Double.compare(y.weight(), x.weight())).toList();
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e12 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
