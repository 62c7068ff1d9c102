package io.acceltriage.agent;

/**
 * One round trip to the model: which model, for which job ({@code purpose}: investigate, summarise,
 * chat) and why it was asked ({@code reason}: what the rules could not settle, or what the summary is
 * of), tokens in and out, latency, and how it ended (ok, or the failure: timeout, rate-limited,
 * server-error, malformed, error).
 */
public record ModelCall(String model, String purpose, int tokensIn, int tokensOut, long latencyMs, String outcome, String error,
        String reason) {

    public ModelCall(String model, String purpose, int tokensIn, int tokensOut, long latencyMs, String outcome, String error) {
        this(model, purpose, tokensIn, tokensOut, latencyMs, outcome, error, null);
    }
}
