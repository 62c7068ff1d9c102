package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutor;
import io.acceltriage.agent.Redaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every tool call of a run passes here: the run guard (loops, steps, budget) first, then the tool,
 * then redaction of its output, then the untrusted-data envelope. What the model reads back is
 * always labelled data with no secrets in it.
 */
final class ToolGate {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_OUTPUT = 8_000;

    private final RunGuard guard;
    private final OutboundText redactor;
    final List<Redaction> redactions = new ArrayList<>();
    final List<String> calls = new ArrayList<>();

    ToolGate(RunGuard guard, OutboundText redactor) {
        this.guard = guard;
        this.redactor = redactor;
    }

    Map<ToolSpecification, ToolExecutor> guarded(List<AgentTool> tools) {
        Map<ToolSpecification, ToolExecutor> out = new LinkedHashMap<>();
        for (AgentTool t : tools) {
            out.put(t.spec(), (request, memoryId) -> run(t, request.name(), request.arguments()));
        }
        return out;
    }

    private String run(AgentTool t, String name, String arguments) {
        guard.beforeTool(name, arguments);
        calls.add(name + " " + arguments);
        String result;
        try {
            JsonNode args = JSON.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
            result = t.call(args);
        } catch (RunStopped e) {
            throw e;
        } catch (Exception e) {
            result = "tool error: " + e.getMessage();
        }
        if (result.length() > MAX_OUTPUT) {
            result = result.substring(0, MAX_OUTPUT) + "\n… (cut at " + MAX_OUTPUT + " characters)";
        }
        OutboundText.Redacted r = redactor.redact(result, "tool " + name);
        redactions.addAll(r.redactions());
        return UntrustedData.wrap("tool:" + name, r.text());
    }
}
