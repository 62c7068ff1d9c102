package io.acceltriage.notify;

import io.acceltriage.store.Json;
import java.time.Instant;

/**
 * One message of the chat outbox as a sender claimed it: what kind it is ({@link #NOTICE} or a
 * channel's own kind), its payload as the kind's handler wrote it, and how often it was tried.
 * {@code retakenFrom}: the sender whose claim on it ran out mid-send (a replica that died), or null.
 * That attempt may have reached the channel: a handler that can ask the channel whether it did
 * (Slack: the message's metadata carries {@link #id}) looks before it sends again.
 */
public record Outgoing(long id, String channel, String kind, String incidentId, String what, String payload, int attempts,
        Instant queuedAt, String retakenFrom) {

    /** True when an earlier attempt may have reached the channel unrecorded. */
    public boolean retaken() {
        return retakenFrom != null;
    }

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
