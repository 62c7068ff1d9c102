package io.acceltriage.scenario;

import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.evidence.Sample;
import java.util.List;

/**
 * A scenario's exporter scrapes, served as a metrics source: the scrape at the alert's time and,
 * when recorded, the one ten minutes earlier. No scrape recorded means the exporter was down.
 */
final class RecordedMetrics implements MetricsSource {

    private static final List<String> NODE_LABELS = List.of("Hostname", "node", "hostname", "kubernetes_node");

    private final List<Sample> now;
    private final List<Sample> before;

    RecordedMetrics(Scenario.Metrics metrics) {
        this.now = metrics == null ? null : parse(metrics.now());
        this.before = metrics == null ? List.of() : parse(metrics.tenMinutesAgo());
    }

    private static List<Sample> parse(String text) {
        return text == null || text.isBlank() ? null : ExpositionParser.parse(text);
    }

    @Override
    public NodeSamples read(String node) throws EvidenceUnavailable {
        if (now == null) {
            throw new EvidenceUnavailable("exporter on " + node + " unreachable: no scrape was recorded");
        }
        List<Sample> mine = ofNode(now, node);
        if (mine.isEmpty()) {
            throw new EvidenceUnavailable("exporter on " + node + " unreachable: the recorded scrapes have no series of " + node);
        }
        return new NodeSamples(mine, before == null ? List.of() : ofNode(before, node));
    }

    /** A node's series: those labelled with it, or every series when the scrape names no node at all. */
    private static List<Sample> ofNode(List<Sample> samples, String node) {
        boolean labelled = samples.stream().anyMatch(s -> NODE_LABELS.stream().anyMatch(l -> s.label(l) != null));
        if (!labelled) return samples;
        return samples.stream().filter(s -> NODE_LABELS.stream().anyMatch(l -> node.equals(s.label(l)))).toList();
    }
}
