package io.acceltriage.notify;

/** One channel to humans (Slack, Teams, the log). Returns whether the notice was delivered. */
public interface Notifier {

    String channel();

    Delivery send(Notice notice);

    /** {@code retryable}: the channel may accept the same notice later (429, 5xx, timeout). */
    record Delivery(boolean delivered, boolean retryable, String detail) {
        public static Delivery ok(String detail) {
            return new Delivery(true, false, detail);
        }
    }
}
