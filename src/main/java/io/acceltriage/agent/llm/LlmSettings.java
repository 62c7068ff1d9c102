package io.acceltriage.agent.llm;

import io.acceltriage.config.Secret;
import java.time.Duration;

/**
 * How to reach the model and how much one incident may spend on it. {@code baseUrl} empty = no model:
 * the rules planner does every job (the embedded default).
 */
public record LlmSettings(String baseUrl, Secret apiKey, String model, Duration timeout, int maxRetries, boolean jsonSchema,
        int maxSteps, long maxTokens, Duration maxTime) {

    public boolean configured() {
        return baseUrl != null && !baseUrl.isBlank();
    }

    /** Same settings against another endpoint: tests and the benchmark point them at a scripted server. */
    public LlmSettings at(String url) {
        return new LlmSettings(url, apiKey, model, timeout, maxRetries, jsonSchema, maxSteps, maxTokens, maxTime);
    }
}
