package io.acceltriage.agent.llm;

/** A guardrail stopped the model's run; the rules take over and the reason is audited. */
final class RunStopped extends RuntimeException {
    RunStopped(String reason) {
        super(reason, null, false, false);
    }
}
