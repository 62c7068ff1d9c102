package io.acceltriage.agent.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Guardrail: stops a run that loops (the same tool with the same arguments twice), takes too many
 * steps, or spends more tokens or seconds than one incident may. A stopped run falls back to the
 * rules; the model cannot argue past it because the check runs before every tool and every answer.
 */
final class RunGuard {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LlmSettings settings;
    private final long startedNanos = System.nanoTime();
    private final Set<String> seen = new HashSet<>();
    private int steps;
    private long tokens;

    RunGuard(LlmSettings settings) {
        this.settings = settings;
    }

    void beforeTool(String tool, String arguments) {
        steps++;
        if (!seen.add(tool + " " + canonical(arguments))) {
            throw new RunStopped("loop: the model called " + tool + " twice with the same arguments " + arguments);
        }
        if (steps > settings.maxSteps()) {
            throw new RunStopped("runaway: more than " + settings.maxSteps() + " tool steps (acceltriage.llm.budget.steps)");
        }
        checkBudget();
    }

    void spent(int tokensIn, int tokensOut) {
        tokens += tokensIn + tokensOut;
    }

    void checkBudget() {
        if (tokens > settings.maxTokens()) {
            throw new RunStopped("token budget spent: " + tokens + " > " + settings.maxTokens() + " (acceltriage.llm.budget.tokens)");
        }
        long ms = (System.nanoTime() - startedNanos) / 1_000_000;
        if (ms > settings.maxTime().toMillis()) {
            throw new RunStopped("time budget spent: " + ms + " ms > " + settings.maxTime().toMillis() + " ms (acceltriage.llm.budget.seconds)");
        }
    }

    int steps() {
        return steps;
    }

    private static String canonical(String arguments) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(arguments == null || arguments.isBlank() ? "{}" : arguments, Map.class);
            return new TreeMap<>(m).toString();
        } catch (Exception e) {
            return String.valueOf(arguments).strip();
        }
    }
}
