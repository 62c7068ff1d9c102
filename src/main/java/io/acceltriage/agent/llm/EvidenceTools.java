package io.acceltriage.agent.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.MetricsSource.EvidenceUnavailable;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Sample;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The read-only evidence lookups of one incident: an item of the bundle by id, the bundle's items of
 * one source, the incident's runbook, and, when Prometheus is configured, the declarative tools of
 * {@code tools/} that fit the incident, each run through {@link PrometheusSource#run} as its own typed
 * PromQL template (an argument outside the tool's parameters or types is refused, nothing is sent).
 */
final class EvidenceTools {

    private EvidenceTools() {}

    /** {@code prometheus}: null when none is configured; {@code runbook}: the runbook the rules' diagnosis chose, if any. */
    static List<AgentTool> of(EvidenceBundle bundle, Toolsets toolsets, PrometheusSource prometheus, Optional<Runbooks.Runbook> runbook) {
        List<AgentTool> out = new ArrayList<>();
        out.add(tool(ToolSpecification.builder().name("get_evidence")
                .description("One evidence item of this incident by id, in full.")
                .parameters(JsonObjectSchema.builder().addStringProperty("id", "the evidence id").required("id").build()).build(),
                args -> {
                    String id = AgentTool.text(args, "id");
                    return bundle.byId(id == null ? "" : id).map(e -> e.id() + " " + e.source() + ": " + e.summary() + "\n" + e.fact())
                            .orElse("no evidence " + id + " in this incident");
                }));
        out.add(tool(ToolSpecification.builder().name("list_evidence")
                .description("This incident's evidence of one source, id and summary each.")
                .parameters(JsonObjectSchema.builder().addEnumProperty("source", List.of("metrics", "cluster", "logs", "events"))
                        .required("source").build()).build(),
                args -> {
                    String source = String.valueOf(AgentTool.text(args, "source")).toUpperCase();
                    List<String> lines = bundle.items().stream().filter(e -> e.source().name().equals(source))
                            .map(e -> e.id() + " " + e.summary()).toList();
                    return lines.isEmpty() ? "no " + source.toLowerCase() + " evidence" : String.join("\n", lines);
                }));
        runbook.ifPresent(r -> out.add(tool(ToolSpecification.builder().name("incident_runbook")
                .description("The runbook for this incident's diagnosis: what it is, who responds, next steps, vendor guides.")
                .parameters(JsonObjectSchema.builder().build()).build(), args -> {
                    if (args.size() > 0) throw new IllegalArgumentException("incident_runbook takes no arguments");
                    return r.text();
                })));
        // Without a Prometheus source a declarative tool could only repeat readings the bundle holds,
        // which list_evidence and get_evidence already give. With one, the toolsets that fit the
        // incident are offered through one dispatcher (PrometheusTools: a schema per tool cost some
        // 100 tokens each in every request of the investigation).
        if (prometheus != null) {
            List<Map.Entry<Toolset, Toolset.Tool>> offered = new ArrayList<>();
            for (Toolset ts : toolsets.all()) {
                if (!fits(ts, bundle)) continue;
                for (Toolset.Tool t : ts.tools()) offered.add(Map.entry(ts, t));
            }
            AgentTool dispatcher = PrometheusTools.of(offered, prometheus);
            if (dispatcher != null) out.add(dispatcher);
        }
        return out;
    }

    /**
     * A device toolset fits when the bundle holds readings of its metrics, or the node has its devices
     * (its {@code resource} among the node's accelerator capacity); when the bundle tells neither (no
     * readings, no capacity) every device toolset fits: the model may look for itself. A tenant toolset
     * (a serving or training workload's own metrics) fits when the incident concerns a workload of the
     * kind that serves them.
     */
    static boolean fits(Toolset ts, EvidenceBundle b) {
        if (ts.tenant()) return b.workloads().stream().anyMatch(ts::servedBy);
        List<String> read = b.of(Facts.MetricReading.class).stream().map(e -> ((Facts.MetricReading) e.fact()).metric()).toList();
        if (ts.tools().stream().anyMatch(t -> read.contains(t.metric()))) return true;
        List<String> resources = b.of(Facts.AcceleratorCapacity.class).stream()
                .map(e -> ((Facts.AcceleratorCapacity) e.fact()).resource()).toList();
        if (ts.resource() != null && resources.contains(ts.resource())) return true;
        return read.isEmpty() && resources.isEmpty();
    }

    static AgentTool tool(ToolSpecification spec, java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, String> body) {
        return new AgentTool() {
            @Override
            public ToolSpecification spec() {
                return spec;
            }

            @Override
            public String call(com.fasterxml.jackson.databind.JsonNode arguments) {
                return body.apply(arguments);
            }
        };
    }
}
