package io.acceltriage.action;

/** What running a mitigation did. {@code retryable}: the failure may pass (409, 429, 5xx, timeout). */
public record Outcome(boolean success, String detail, boolean retryable) {

    static Outcome done(String detail) {
        return new Outcome(true, detail, false);
    }

    static Outcome failed(String detail, boolean retryable) {
        return new Outcome(false, detail, retryable);
    }
}
