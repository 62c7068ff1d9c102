package io.acceltriage.notify;

import java.time.Duration;

/**
 * One kind of message a chat channel sends from the outbox (Slack's incident notices, Slack's replies,
 * Teams' cards): one attempt at one message. The handlers of kind {@link Outgoing#NOTICE} are the
 * channels that tell incidents; {@link Escalations} queues every notice for each of them.
 */
public interface Outbound {

    String channel();

    String kind();

    /** The least time between two requests to the channel (Teams: 250 ms, four a second). */
    default Duration minGap() {
        return Duration.ZERO;
    }

    Delivery attempt(Outgoing message);
}
