package io.acceltriage.notify;

import java.time.Duration;

/**
 * How one attempt at sending a chat message went. {@code retryAfter} set: the channel refused it for
 * now (429 with Retry-After, 5xx, no answer) and the same message is tried again, not before then;
 * not delivered without it: refused for good (bad token, unknown channel), not tried again.
 */
public record Delivery(boolean delivered, Duration retryAfter, String detail) {

    public static Delivery ok(String detail) {
        return new Delivery(true, null, detail);
    }

    /** {@code after}: what the channel asked for (Retry-After), or null to leave it to the backoff. */
    public static Delivery retry(Duration after, String detail) {
        return new Delivery(false, after == null ? Duration.ZERO : after, detail);
    }

    public static Delivery failed(String detail) {
        return new Delivery(false, null, detail);
    }

    public boolean retryable() {
        return !delivered && retryAfter != null;
    }
}
