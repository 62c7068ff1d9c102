package io.acceltriage.notify;

import io.acceltriage.store.Json;
import java.time.Instant;

/**
 * One message of the chat outbox as a sender claimed it: what kind it is ({@link #NOTICE} or a
 * channel's own kind), its payload as the kind's handler wrote it, and how often it was tried.
 */
public record Outgoing(long id, String channel, String kind, String incidentId, String what, String payload, int attempts,
        Instant queuedAt) {

    /** An incident notice; its payload is the {@link Notice}, rendered from the store when it is sent. */
    public static final String NOTICE = "notice";

    public Notice notice() {
        return Json.read(payload, Notice.class);
    }

    /** A message to queue: {@code incidentId} null for one about no incident (a reply, the breaker). */
    public record Draft(String channel, String kind, String incidentId, String what, String payload) {

        public static Draft notice(String channel, Notice n) {
            return new Draft(channel, NOTICE, n.incidentId(), n.event(), Json.write(n));
        }
    }
}
