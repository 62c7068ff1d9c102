package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutor;
import io.acceltriage.agent.Redaction;
import io.acceltriage.agent.ToolCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every tool call of a run passes here: the run guard (loops, steps, budget) first, then the tool,
 * then redaction of its output, then the untrusted-data envelope. What the model reads back is
 * always labelled data with no secrets in it. Each call is kept as a {@link ToolCall} for the audit:
 * {@code refused} when its arguments were outside the tool's schema (nothing ran), {@code error} when
 * the tool's source failed.
 */
final class ToolGate {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_OUTPUT = 8_000;

    private final RunGuard guard;
    private final OutboundText redactor;
    final List<Redaction> redactions = new ArrayList<>();
    final List<String> calls = new ArrayList<>();
    final List<ToolCall> tools = new ArrayList<>();
    /** What the audit keeps of a tool's answer and arguments. */
    static final int MAX_AUDITED = 1_000;

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
        String outcome = "ok";
        String audited = name;
        try {
            JsonNode args = JSON.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
            if (!args.isObject()) throw new IllegalArgumentException("the arguments must be a JSON object");
            audited = t.audited(args);
            result = t.call(args);
        } catch (RunStopped e) {
            throw e;
        } catch (IllegalArgumentException | com.fasterxml.jackson.core.JsonProcessingException e) {
            outcome = "refused";
            result = "refused, nothing was run: " + e.getMessage();
        } catch (Exception e) {
            outcome = "error";
            result = "tool error: " + e.getMessage();
        }
        if (result.length() > MAX_OUTPUT) {
            result = result.substring(0, MAX_OUTPUT) + "\n… (cut at " + MAX_OUTPUT + " characters)";
        }
        OutboundText.Redacted r = redactor.redact(result, "tool " + name);
        redactions.addAll(r.redactions());
        OutboundText.Redacted a = redactor.redact(arguments == null ? "{}" : arguments, "tool " + name + " arguments");
        redactions.addAll(a.redactions());
        tools.add(new ToolCall(audited, cut(a.text()), outcome, cut(r.text())));
        return UntrustedData.wrap("tool:" + audited, r.text());
    }

    private static String cut(String s) {
        return s.length() > MAX_AUDITED ? s.substring(0, MAX_AUDITED) + "…" : s;
    }
}
