package io.acceltriage.notify;

/**
 * A channel told at once, in this process (the service log). Chat channels are {@link Outbound}: their
 * messages go through the durable outbox instead, sent once by one replica.
 */
public interface Notifier {

    String channel();

    void send(Notice notice);
}
