package io.acceltriage.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.notify.DeliveryQueue.Result;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A chat channel (Slack, Teams) that keeps failing: its messages are retried with backoff for a
 * bounded time, then given up with an audited record on the incident; the messages behind them, and
 * whoever queued them, are not held for ever.
 */
class ChatOutageTest {

    Database database = TestDatabases.h2();
    AuditReader audit = TestAudit.reader(database);
    DeliveryQueue queue;

    @BeforeEach
    void start() {
        queue = new DeliveryQueue("slack", 10, Duration.ZERO, TestAudit.on(database), Duration.ofMillis(20), Duration.ofMillis(600));
    }

    @AfterEach
    void stop() {
        queue.close();
    }

    @Test
    void aChannelAnswering5xxForeverIsGivenUpWithAnAuditedNoteAndTheNextMessageStillGoes() throws Exception {
        String down = "inc-" + UUID.randomUUID();
        String after = "inc-" + UUID.randomUUID();
        AtomicInteger attempts = new AtomicInteger();
        long began = System.nanoTime();
        assertTrue(queue.offer(down, "escalated", () -> {
            attempts.incrementAndGet();
            return Result.retry(null, "chat.postMessage: Slack answered HTTP 503");
        }));
        assertTrue(queue.offer(after, "escalated", () -> Result.ok("posted")));

        JsonNode given = awaitNotification(down);
        assertFalse(given.path("delivered").asBoolean(), given.toString());
        String detail = given.path("detail").asText();
        assertTrue(detail.startsWith("gave up after ") && detail.contains("last: chat.postMessage: Slack answered HTTP 503")
                && detail.contains("check the slack service"), detail);
        assertEquals(attempts.get(), given.path("attempts").asInt());
        // Backoff doubles from 20 ms: a handful of attempts in 600 ms, not a tight loop.
        assertTrue(attempts.get() >= 3 && attempts.get() <= 7, attempts.get() + " attempts");
        assertTrue(awaitNotification(after).path("delivered").asBoolean(), "the message behind the failed one went out");
        assertTrue(System.nanoTime() - began < Duration.ofSeconds(5).toNanos());
    }

    @Test
    void aChannelThatRecoversWithinTheBoundDeliversTheMessageAfterItsRetries() throws Exception {
        String id = "inc-" + UUID.randomUUID();
        AtomicInteger attempts = new AtomicInteger();
        queue.offer(id, "escalated", () -> attempts.incrementAndGet() < 3 ? Result.retry(null, "Teams webhook answered HTTP 502")
                : Result.ok("posted"));
        JsonNode n = awaitNotification(id);
        assertTrue(n.path("delivered").asBoolean(), n.toString());
        assertEquals(3, n.path("attempts").asInt());
    }

    @Test
    void aPermanentRefusalIsNotRetried() throws Exception {
        String id = "inc-" + UUID.randomUUID();
        AtomicInteger attempts = new AtomicInteger();
        queue.offer(id, "escalated", () -> {
            attempts.incrementAndGet();
            return Result.failed("Slack refused chat.postMessage: invalid_auth");
        });
        JsonNode n = awaitNotification(id);
        assertFalse(n.path("delivered").asBoolean());
        assertEquals(1, attempts.get());
    }

    private JsonNode awaitNotification(String incidentId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            List<JsonNode> found = audit.find(AuditQuery.forIncident(incidentId)).stream()
                    .filter(r -> r.kind() == AuditKind.NOTIFICATION).map(r -> r.payload()).toList();
            if (!found.isEmpty()) return found.get(0);
            Thread.sleep(20);
        }
        throw new AssertionError("no notification record for " + incidentId + " within 5 s");
    }
}
