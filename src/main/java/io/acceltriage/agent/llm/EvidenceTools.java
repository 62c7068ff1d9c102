package io.acceltriage.agent.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The read-only evidence lookups of one incident: an item of the bundle by id, the bundle's items of
 * one source, and, when a Prometheus source exists, every declarative tool of {@code tools/} by its
 * own name and parameters, run as its PromQL template.
 */
final class EvidenceTools {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    private EvidenceTools() {}

    /** {@code prometheus}: runs a PromQL query and returns the result as text; null when there is none. */
    static List<AgentTool> of(EvidenceBundle bundle, Toolsets toolsets, Function<String, String> prometheus) {
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
        // Without a Prometheus source a declarative tool could only repeat readings the bundle holds,
        // which list_evidence and get_evidence already give; its specification would cost some 10 KB
        // in every request of the investigation (two thirds of it, measured over the corpus).
        if (prometheus != null) {
            for (Toolset ts : toolsets.all()) {
                for (Toolset.Tool t : ts.tools()) {
                    out.add(declarative(ts, t, prometheus));
                }
            }
        }
        return out;
    }

    private static AgentTool declarative(Toolset ts, Toolset.Tool t, Function<String, String> prometheus) {
        JsonObjectSchema.Builder params = JsonObjectSchema.builder();
        List<String> required = new ArrayList<>();
        for (Toolset.Parameter p : t.parameters() == null ? List.<Toolset.Parameter>of() : t.parameters()) {
            params.addStringProperty(p.name(), p.type().name().toLowerCase() + ": " + (p.description() == null ? p.name() : p.description()));
            required.add(p.name());
        }
        ToolSpecification spec = ToolSpecification.builder().name(t.name())
                .description("[" + ts.name() + "] " + t.description().strip())
                .parameters(params.required(required).build()).build();
        return tool(spec, args -> {
            Matcher m = PLACEHOLDER.matcher(t.query());
            StringBuilder q = new StringBuilder();
            while (m.find()) {
                String v = Optional.ofNullable(AgentTool.text(args, m.group(1))).orElse("");
                // A value is a label value inside quotes: nothing in it may end the quote or the selector.
                m.appendReplacement(q, Matcher.quoteReplacement(v.replaceAll("[^A-Za-z0-9_.:/-]", "")));
            }
            m.appendTail(q);
            return prometheus.apply(q.toString());
        });
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
