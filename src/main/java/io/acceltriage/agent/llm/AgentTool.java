package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolSpecification;

/**
 * A tool the model may call: its specification (name, when to call it, typed parameters) and what it
 * does with the arguments. Every tool but propose_mitigation only reads.
 */
interface AgentTool {

    ToolSpecification spec();

    String call(JsonNode arguments);

    /** The name the audit gives a call: the tool's own, or for a dispatcher the tool it was asked to run. */
    default String audited(JsonNode arguments) {
        return spec().name();
    }

    static String text(JsonNode args, String name) {
        JsonNode v = args.get(name);
        return v == null || v.isNull() ? null : v.asText();
    }
}
