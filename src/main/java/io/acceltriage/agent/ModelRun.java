package io.acceltriage.agent;

import java.util.List;

/**
 * What the model did for one incident, kept in the assessment so tokens and round trips show on the
 * incident: its conclusion, whether it agreed with the rules, every call, every tool it called, every
 * redaction, every guardrail that fired, and the reason the rules took over when it failed
 * ({@code fallback}, null when the model's work was used).
 */
public record ModelRun(String model, String family, String cause, List<String> citedEvidence, Boolean agreesWithRules,
        boolean summaryAccepted, int roundTrips, long tokensIn, long tokensOut, List<ModelCall> calls,
        List<Redaction> redactions, List<String> guardrails, String fallback, List<ToolCall> tools) {

    public ModelRun {
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    /** This run with the tools it called. */
    public ModelRun withTools(List<ToolCall> called) {
        return new ModelRun(model, family, cause, citedEvidence, agreesWithRules, summaryAccepted, roundTrips, tokensIn, tokensOut, calls,
                redactions, guardrails, fallback, called);
    }

    public static ModelRun of(String model, String family, String cause, List<String> cited, Boolean agrees, boolean summaryAccepted,
            List<ModelCall> calls, List<Redaction> redactions, List<String> guardrails, String fallback) {
        long in = calls.stream().mapToLong(ModelCall::tokensIn).sum();
        long out = calls.stream().mapToLong(ModelCall::tokensOut).sum();
        return new ModelRun(model, family, cause, List.copyOf(cited), agrees, summaryAccepted, calls.size(), in, out,
                List.copyOf(calls), List.copyOf(redactions), List.copyOf(guardrails), fallback, List.of());
    }
}
