package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import io.acceltriage.evidence.MetricsSource.EvidenceUnavailable;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Sample;
import io.acceltriage.evidence.Toolset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The declarative tools of {@code tools/} that fit an incident, offered to the model as one tool,
 * {@code prometheus_query}: the tool's name from an enum, its parameters beside it. One specification
 * with a line per tool instead of a schema per tool: 24 schemas cost some 2,400 tokens in every request
 * of an investigation (LiveModelIT, session 5), which put a tool-using investigation at 9,824 input
 * tokens against the 4,000 of issue #16. Nothing is lost: each call is still checked against the
 * chosen tool's own declared parameters and types by {@link PrometheusSource#render} (an argument the
 * tool does not take, a missing one or one of the wrong type is refused before anything is sent), and
 * the audit names the tool that ran.
 */
final class PrometheusTools {

    static final String NAME = "prometheus_query";
    /** A tool's line in the dispatcher's description: its first sentence, cut here. */
    private static final int LINE = 60;

    private PrometheusTools() {}

    /**
     * One dispatcher over {@code fitting} (toolset and tool, in order); null when none is offered. A query that
     * compares a window before the fault with one after is reliability's measure of the aftermath
     * ({@code impact}, read by its watch), not evidence of the moment: never offered, so no {@code window}
     * parameter reaches the model and no request pays for it.
     */
    static AgentTool of(List<Map.Entry<Toolset, Toolset.Tool>> fitting, PrometheusSource prometheus) {
        List<Map.Entry<Toolset, Toolset.Tool>> offered = fitting.stream()
                .filter(e -> e.getValue().impact() == null || e.getValue().impact().atFaultOnly()).toList();
        if (offered.isEmpty()) return null;
        Map<String, Map.Entry<Toolset, Toolset.Tool>> byName = new LinkedHashMap<>();
        Map<String, Toolset.Parameter> parameters = new LinkedHashMap<>();
        // Grouped by the parameters they take, so each tool's line is its name and what it reads.
        Map<String, StringBuilder> groups = new LinkedHashMap<>();
        for (Map.Entry<Toolset, Toolset.Tool> e : offered) {
            Toolset.Tool t = e.getValue();
            byName.put(t.name(), e);
            List<String> names = new ArrayList<>();
            for (Toolset.Parameter p : t.parameters() == null ? List.<Toolset.Parameter>of() : t.parameters()) {
                parameters.putIfAbsent(p.name(), p);
                names.add(p.name());
            }
            String group = (names.isEmpty() ? "no parameters" : "taking " + String.join(", ", names))
                    + (e.getKey().tenant() ? " (the workload serves these: a tenant source)" : "");
            groups.computeIfAbsent(group, g -> new StringBuilder()).append("\n").append(t.name()).append(": ")
                    .append(firstSentence(t.description()));
        }
        StringBuilder description = new StringBuilder("Read Prometheus now (read-only): tool is one of these, with its parameters.");
        groups.forEach((group, lines) -> description.append("\nTools ").append(group).append(':').append(lines));
        JsonObjectSchema.Builder schema = JsonObjectSchema.builder().addEnumProperty("tool", List.copyOf(byName.keySet()));
        for (Toolset.Parameter p : parameters.values()) schema.addStringProperty(p.name(), p.type().name().toLowerCase());
        ToolSpecification spec = ToolSpecification.builder().name(NAME).description(description.toString())
                .parameters(schema.required("tool").additionalProperties(false).build()).build();
        return new AgentTool() {
            @Override
            public ToolSpecification spec() {
                return spec;
            }

            @Override
            public String audited(JsonNode arguments) {
                String tool = AgentTool.text(arguments, "tool");
                return tool != null && byName.containsKey(tool) ? tool : NAME;
            }

            @Override
            public String call(JsonNode arguments) {
                String tool = AgentTool.text(arguments, "tool");
                Map.Entry<Toolset, Toolset.Tool> chosen = tool == null ? null : byName.get(tool);
                if (chosen == null) {
                    throw new IllegalArgumentException(tool == null ? NAME + " needs tool, one of " + String.join(", ", byName.keySet())
                            : "'" + abbreviate(tool) + "' is not one of this incident's Prometheus tools (" + String.join(", ", byName.keySet()) + ")");
                }
                // Null stands for "not given" (small models fill every property of the schema); anything
                // else goes to the chosen tool's own check, which refuses what it does not declare.
                Map<String, String> values = new LinkedHashMap<>();
                arguments.fields().forEachRemaining(f -> {
                    if (!f.getKey().equals("tool") && !f.getValue().isNull()) {
                        values.put(f.getKey(), f.getValue().isValueNode() ? f.getValue().asText() : f.getValue().toString());
                    }
                });
                return run(chosen.getKey(), chosen.getValue(), values, prometheus);
            }
        };
    }

    private static String run(Toolset ts, Toolset.Tool t, Map<String, String> values, PrometheusSource prometheus) {
        PrometheusSource.ToolReading r;
        try {
            r = prometheus.run(t, values);
        } catch (EvidenceUnavailable e) {
            throw new IllegalStateException(e.getMessage());
        }
        // Labels every series shares (the node, the GPU model, the driver) are said once, then each
        // series by what sets it apart: a node's eight GPUs otherwise repeat some 200 characters each.
        Map<String, String> common = new LinkedHashMap<>(r.samples().isEmpty() ? Map.of() : r.samples().get(0).labels());
        for (Sample sample : r.samples()) common.entrySet().removeIf(e -> !e.getValue().equals(sample.labels().get(e.getKey())));
        if (r.samples().size() < 2) common.clear();
        StringBuilder sb = new StringBuilder(r.series() + " series" + (r.series() > r.samples().size()
                ? ", the first " + r.samples().size() + " shown" : "") + (ts.tenant() ? " (served by the workload: a tenant source)" : "")
                + (common.isEmpty() ? "" : ", all with " + common) + ":\n");
        for (Sample sample : r.samples()) {
            Map<String, String> own = new LinkedHashMap<>(sample.labels());
            own.keySet().removeAll(common.keySet());
            sb.append(sample.name() == null ? "" : sample.name()).append(own).append(' ').append(sample.value()).append('\n');
        }
        return sb.toString().strip();
    }

    static String firstSentence(String description) {
        String flat = description.strip().replaceAll("\\s+", " ");
        int end = flat.indexOf(". ");
        String first = end < 0 ? flat : flat.substring(0, end + 1);
        if (first.length() <= LINE) return first;
        int space = first.lastIndexOf(' ', LINE - 1);
        return first.substring(0, space > 0 ? space : LINE - 1) + "…";
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }
}
