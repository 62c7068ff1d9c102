package io.acceltriage.reliability;

import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.config.KubernetesNames;
import io.acceltriage.evidence.MetricsSource.EvidenceUnavailable;
import io.acceltriage.evidence.PrometheusConfig;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Sample;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads what a fault did to the service from Prometheus: each {@code impact:} tool of {@code tools/}
 * (serving latency and failures, training step time and checkpoint age), for the namespaces of the
 * workloads triage found on the node, over the window before the fault's start and the window after.
 * Needs {@code ACCELTRIAGE_PROMETHEUS_URL}, whatever the device metrics' source is; without it every
 * incident's impact is "not measured", never a guess.
 */
@ApplicationScoped
public class ServiceImpacts {

    /** Namespaces read per incident: a node holds few workloads; a fleet incident is bounded. */
    static final int MAX_NAMESPACES = 5;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    private final Optional<PrometheusSource> prometheus;
    private final List<Toolset.Tool> tools;
    private final Duration window;

    @jakarta.inject.Inject
    ServiceImpacts(PrometheusConfig config, @ConfigProperty(name = "acceltriage.tools.dir", defaultValue = "tools") String toolsDir,
            @ConfigProperty(name = "acceltriage.impact.window", defaultValue = "15m") Duration window) {
        this(config.url().filter(u -> !u.isBlank()).map(u -> PrometheusSource.from(config)), Toolsets.load(toolsDir), window);
    }

    ServiceImpacts(Optional<PrometheusSource> prometheus, Toolsets toolsets, Duration window) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalStateException("ACCELTRIAGE_IMPACT_WINDOW (acceltriage.impact.window) must be a positive duration, got " + window);
        }
        this.prometheus = prometheus;
        this.tools = toolsets.impactTools();
        this.window = window;
    }

    public boolean configured() {
        return prometheus.isPresent();
    }

    public Duration window() {
        return window;
    }

    /** When the window after the fault has passed: the moment an incident's impact can be read. */
    Instant dueAt(Instant faultAt) {
        return faultAt.plus(window);
    }

    /** The impact of an incident not measured yet, without reading anything: pending, or why it cannot be. */
    ServiceImpact unmeasured(Instant faultAt, Instant now) {
        if (!configured()) return ServiceImpact.notMeasured("Prometheus is not configured (ACCELTRIAGE_PROMETHEUS_URL)", faultAt);
        if (faultAt == null) return ServiceImpact.notMeasured("the fault's start is unknown (no alert startsAt)", faultAt);
        return ServiceImpact.pending(faultAt, window);
    }

    /** The namespaces of the workloads triage found on the node, from the stored assessment. */
    static List<String> namespaces(StoredAssessment assessment, String node) {
        if (assessment == null) return List.of();
        TreeSet<String> out = new TreeSet<>();
        for (StoredAssessment.Pod p : assessment.evidence().pods()) {
            if (p.workload() && p.namespace() != null && (node == null || node.equals(p.node()))) out.add(p.namespace());
        }
        return out.stream().limit(MAX_NAMESPACES).toList();
    }

    /**
     * Reads the impact of a fault that began at {@code faultAt} on the workloads of {@code namespaces}.
     * Throws when Prometheus cannot answer (a reason to try again, not a result); an absent series is
     * no reading, and none at all is "not measured" with the namespaces named.
     */
    ServiceImpact measure(Instant faultAt, List<String> namespaces, Instant now) throws EvidenceUnavailable {
        ServiceImpact unmeasured = unmeasured(faultAt, now);
        if (unmeasured.status() == ServiceImpact.Status.NOT_MEASURED) return unmeasured;
        if (now.isBefore(dueAt(faultAt))) return unmeasured;
        if (namespaces.isEmpty()) {
            return ServiceImpact.notMeasured("triage found no workload pod on the node, so no service to read", faultAt);
        }
        String span = window.toSeconds() + "s";
        List<ServiceImpact.Reading> readings = new ArrayList<>();
        Double lost = null;
        Double atRisk = null;
        for (String ns : namespaces) {
            if (!KubernetesNames.isNamespace(ns)) continue;
            for (Toolset.Tool t : tools) {
                String q = fill(t.query(), ns, span);
                Double before = value(prometheus.get().queryAt(q, faultAt, t.name() + " of " + ns));
                Double after = t.impact().atFaultOnly() ? null : value(prometheus.get().queryAt(q, dueAt(faultAt), t.name() + " of " + ns));
                if (before == null && after == null) continue;
                readings.add(new ServiceImpact.Reading(ns, t.name(), t.impact().measure(), before, after));
                if ("step-time".equals(t.impact().measure()) && before != null && after != null && before > 0 && after > before) {
                    // A job that slowed from `before` to `after` seconds a step made before/after of the progress it would have.
                    double l = window.toSeconds() * (1 - before / after);
                    lost = lost == null ? l : Math.max(lost, l);
                }
                if ("checkpoint-age".equals(t.impact().measure()) && before != null) {
                    atRisk = atRisk == null ? before : Math.max(atRisk, before);
                }
            }
        }
        if (readings.isEmpty()) {
            return ServiceImpact.notMeasured("Prometheus has none of the serving or training series (tools/serving.yaml, "
                    + "tools/training.yaml) for namespace " + String.join(", ", namespaces) + " around the fault", faultAt);
        }
        return new ServiceImpact(ServiceImpact.Status.MEASURED, null, faultAt, (double) window.toSeconds(), readings,
                lost == null ? null : Math.round(lost * 10) / 10.0, atRisk == null ? null : Math.round(atRisk * 10) / 10.0);
    }

    static String fill(String template, String namespace, String window) {
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder q = new StringBuilder();
        while (m.find()) {
            String v = switch (m.group(1)) {
                case "namespace" -> namespace;
                case "window" -> window;
                default -> throw new IllegalStateException("impact tool uses {{" + m.group(1) + "}}, which reliability cannot fill");
            };
            m.appendReplacement(q, Matcher.quoteReplacement(v));
        }
        m.appendTail(q);
        return q.toString();
    }

    /** The one value of an aggregated query; none for an empty vector, or NaN (no requests in the window: 0/0). */
    private static Double value(List<Sample> samples) {
        if (samples.isEmpty()) return null;
        double v = samples.get(0).value();
        return Double.isNaN(v) || Double.isInfinite(v) ? null : Math.round(v * 10000) / 10000.0;
    }
}
