package io.acceltriage.agent;

/**
 * One round trip to the model: which model, for which job, tokens in and out, latency, and how it
 * ended (ok, or the failure: timeout, rate-limited, server-error, malformed, error).
 */
public record ModelCall(String model, String purpose, int tokensIn, int tokensOut, long latencyMs, String outcome, String error) {}
