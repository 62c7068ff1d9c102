package io.acceltriage.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The durable chat outbox with its senders, as replicas share it: each message sent by exactly one
 * sender, an incident's messages in order and one at a time, a message queued twice for one moment of
 * an incident queued once, nothing lost when the sender goes away, refusals retried with backoff and
 * given up after a bound with an audited record. On H2 always, on PostgreSQL when
 * ACCELTRIAGE_TEST_POSTGRES_URL is set.
 */
class ChatOutboxTest {

    static Stream<Database> databases() {
        return TestDatabases.all().stream();
    }

    /** A channel that records each attempt and answers what {@code answer} says. */
    static final class Recorder implements Outbound {
        final List<String> attempts = new CopyOnWriteArrayList<>();
        final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final Map<String, Long> sentAt = new ConcurrentHashMap<>();
        final Function<Outgoing, Delivery> answer;

        Recorder(Function<Outgoing, Delivery> answer) {
            this.answer = answer;
        }

        @Override
        public String channel() {
            return "slack";
        }

        @Override
        public String kind() {
            return "test";
        }

        @Override
        public Delivery attempt(Outgoing m) {
            AtomicInteger now = inFlight.computeIfAbsent(String.valueOf(m.incidentId()), k -> new AtomicInteger());
            if (now.incrementAndGet() > 1) overlaps.incrementAndGet();
            try {
                Thread.sleep(5);
                attempts.add(m.payload());
                sentAt.put(m.payload(), System.nanoTime());
                return answer.apply(m);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Delivery.retry(null, "interrupted");
            } finally {
                now.decrementAndGet();
            }
        }
    }

    static OutboxSender sender(ChatOutbox outbox, Database database, Outbound handler, String name, Duration giveUpAfter) {
        return new OutboxSender(outbox, List.of(handler), TestAudit.on(database), name, Duration.ofMillis(20), giveUpAfter,
                Duration.ofMillis(20));
    }

    static boolean queue(Database database, ChatOutbox outbox, String incident, String payload) {
        return database.transaction(tx -> outbox.enqueue(tx, new Outgoing.Draft("slack", "test", incident, "escalated", payload)));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void twoSendersSendEachMessageExactlyOnceAndAnIncidentsMessagesInOrderOneAtATime(Database database) throws Exception {
        ChatOutbox outbox = new ChatOutbox(database);
        Recorder channel = new Recorder(m -> Delivery.ok("posted"));
        List<String> queued = new ArrayList<>();
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 30; i++) {
            String incident = "inc-" + run + "-" + (i % 5);
            String payload = incident + " message " + i;
            assertTrue(queue(database, outbox, incident, payload));
            queued.add(payload);
        }
        try (OutboxSender a = sender(outbox, database, channel, "replica-a", Duration.ofMinutes(1)).start();
                OutboxSender b = sender(outbox, database, channel, "replica-b", Duration.ofMinutes(1)).start()) {
            await(() -> outbox.pending() == 0, "every message sent");
        }
        List<String> sent = new ArrayList<>(channel.attempts);
        assertEquals(queued.size(), sent.size(), "each message attempted once: " + sent);
        assertEquals(queued.size(), sent.stream().distinct().count());
        assertEquals(0, channel.overlaps.get(), "two messages of one incident were in flight at once");
        for (int k = 0; k < 5; k++) {
            String incident = "inc-" + run + "-" + k;
            List<String> ofIncident = sent.stream().filter(p -> p.startsWith(incident + " ")).toList();
            assertEquals(queued.stream().filter(p -> p.startsWith(incident + " ")).toList(), ofIncident, "in the order queued");
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void theSameMessageQueuedByTwoReplicasAtOnceIsQueuedOnceAndAgainOnlyAfterSomethingElse(Database database) throws Exception {
        ChatOutbox outbox = new ChatOutbox(database);
        String incident = "inc-" + UUID.randomUUID();
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Boolean>> both = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                both.add(pool.submit(() -> {
                    together.await();
                    return queue(database, outbox, incident, "escalated: XID 79 on gpu-h100-03");
                }));
            }
            int queued = 0;
            for (Future<Boolean> f : both) queued += f.get() ? 1 : 0;
            assertEquals(1, queued, "queued by both replicas");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, outbox.pending());
        assertFalse(queue(database, outbox, incident, "escalated: XID 79 on gpu-h100-03"), "a repeat of the message still waiting");
        assertTrue(queue(database, outbox, incident, "resolved"));
        assertTrue(queue(database, outbox, incident, "escalated: XID 79 on gpu-h100-03"), "the same news after other news is news");
        assertEquals(3, outbox.pending());
        // Once sent, the same message again is an update of what the channel shows (Slack updates its message in place).
        Recorder channel = new Recorder(m -> Delivery.ok("posted"));
        try (OutboxSender s = sender(outbox, database, channel, "replica", Duration.ofMinutes(1)).start()) {
            await(() -> outbox.pending() == 0, "sent");
        }
        assertTrue(queue(database, outbox, incident, "escalated: XID 79 on gpu-h100-03"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aMessageOutlivesItsSenderAndAClaimLeftByADeadSenderIsTakenOverWhenItRunsOut(Database database) throws Exception {
        ChatOutbox outbox = new ChatOutbox(database);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String first = "inc-" + run + "-1";
        String second = "inc-" + run + "-2";
        assertTrue(queue(database, outbox, first, "queued before a restart"));
        // A sender claims the first and dies without an answer (SIGKILL): its claim stays on the row.
        long claimedAt = System.nanoTime();
        assertTrue(outbox.claim("slack", "dead-replica", Instant.now(), Duration.ofMillis(300)).isPresent());
        assertTrue(queue(database, outbox, second, "queued while no sender ran"));
        Recorder channel = new Recorder(m -> Delivery.ok("posted"));
        try (OutboxSender restarted = sender(outbox, database, channel, "restarted", Duration.ofMinutes(1)).start()) {
            await(() -> channel.attempts.size() == 2, "both messages sent by the new sender");
        }
        assertTrue(channel.sentAt.get("queued before a restart") - claimedAt >= Duration.ofMillis(300).toNanos(),
                "the dead sender's claim was honoured until it ran out");
        assertEquals(2, channel.attempts.size(), "each sent once: " + channel.attempts);
        long retaken = database.read(c -> {
            try (var rs = c.createStatement().executeQuery("select count(*) from chat_outbox where retaken_from = 'dead-replica'")) {
                rs.next();
                return rs.getLong(1);
            }
        });
        assertEquals(1L, retaken, "the taken-over message says whose claim it took over");
        AuditReader audit = TestAudit.reader(database);
        assertEquals(2, notifications(audit, first).size() + notifications(audit, second).size());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aChannelAnswering5xxForeverIsGivenUpWithAnAuditedNoteAndTheIncidentsNextMessageStillGoes(Database database)
            throws Exception {
        ChatOutbox outbox = new ChatOutbox(database);
        String incident = "inc-" + UUID.randomUUID();
        AtomicInteger refused = new AtomicInteger();
        Recorder channel = new Recorder(m -> m.payload().equals("down") ? refusedAgain(refused)
                : Delivery.ok("posted"));
        assertTrue(queue(database, outbox, incident, "down"));
        assertTrue(queue(database, outbox, incident, "after"));
        try (OutboxSender s = sender(outbox, database, channel, "replica", Duration.ofMillis(600)).start()) {
            await(() -> notifications(TestAudit.reader(database), incident).size() == 2, "both messages recorded");
        }
        List<JsonNode> records = notifications(TestAudit.reader(database), incident);
        JsonNode given = records.get(0);
        assertFalse(given.path("delivered").asBoolean(), given.toString());
        String detail = given.path("detail").asText();
        assertTrue(detail.startsWith("gave up after ") && detail.contains("last: chat.postMessage: Slack answered HTTP 503")
                && detail.contains("check the slack service"), detail);
        assertEquals(refused.get(), given.path("attempts").asInt());
        // Backoff doubles from 20 ms: a handful of attempts in 600 ms, not a tight loop.
        assertTrue(refused.get() >= 3 && refused.get() <= 7, refused.get() + " attempts");
        assertTrue(records.get(1).path("delivered").asBoolean(), "the message behind the given-up one went out");
        assertEquals(0, outbox.pending());
    }

    private static Delivery refusedAgain(AtomicInteger refused) {
        refused.incrementAndGet();
        return Delivery.retry(null, "chat.postMessage: Slack answered HTTP 503");
    }

    @Test
    void aChannelThatRecoversWithinTheBoundDeliversTheMessageAfterItsRetries() throws Exception {
        Database database = TestDatabases.h2();
        ChatOutbox outbox = new ChatOutbox(database);
        String id = "inc-" + UUID.randomUUID();
        AtomicInteger attempts = new AtomicInteger();
        Recorder channel = new Recorder(m -> attempts.incrementAndGet() < 3 ? Delivery.retry(null, "Teams webhook answered HTTP 502")
                : Delivery.ok("posted"));
        queue(database, outbox, id, "escalated");
        try (OutboxSender s = sender(outbox, database, channel, "replica", Duration.ofMinutes(1)).start()) {
            await(() -> !notifications(TestAudit.reader(database), id).isEmpty(), "a record");
        }
        JsonNode n = notifications(TestAudit.reader(database), id).get(0);
        assertTrue(n.path("delivered").asBoolean(), n.toString());
        assertEquals(3, n.path("attempts").asInt());
    }

    @Test
    void aPermanentRefusalIsNotRetried() throws Exception {
        Database database = TestDatabases.h2();
        ChatOutbox outbox = new ChatOutbox(database);
        String id = "inc-" + UUID.randomUUID();
        Recorder channel = new Recorder(m -> Delivery.failed("Slack refused chat.postMessage: invalid_auth"));
        queue(database, outbox, id, "escalated");
        try (OutboxSender s = sender(outbox, database, channel, "replica", Duration.ofMinutes(1)).start()) {
            await(() -> !notifications(TestAudit.reader(database), id).isEmpty(), "a record");
            Thread.sleep(100);
        }
        assertFalse(notifications(TestAudit.reader(database), id).get(0).path("delivered").asBoolean());
        assertEquals(1, channel.attempts.size());
    }

    @ParameterizedTest
    @MethodSource("databases")
    void theLeaderSweepsMessagesDoneLongerAgoThanTheRetentionKeepsTheRestAndAuditsHowMany(Database database) throws Exception {
        ChatOutbox outbox = new ChatOutbox(database);
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (String payload : List.of("old sent", "old given up", "recent")) {
            assertTrue(queue(database, outbox, "inc-" + run + "-" + payload.replace(' ', '-'), payload));
        }
        Recorder channel = new Recorder(m -> m.payload().equals("old given up") ? Delivery.failed("channel_not_found")
                : Delivery.ok("posted"));
        try (OutboxSender s = sender(outbox, database, channel, "replica", Duration.ofMinutes(1)).start()) {
            await(() -> channel.attempts.size() == 3, "all three done");
            await(() -> count(database, "select count(*) from chat_outbox where thread_key like 'inc-" + run + "-%'"
                    + " and status <> 'PENDING'") == 3, "all three recorded");
        }
        assertTrue(queue(database, outbox, "inc-" + run + "-waiting", "waiting"), "one still pending (no sender runs)");
        Instant now = Instant.now();
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("update chat_outbox set done_at = ? where payload in ('old sent', 'old given up')"
                    + " and thread_key like ?")) {
                ps.setTimestamp(1, java.sql.Timestamp.from(now.minus(Duration.ofDays(2))));
                ps.setString(2, "inc-" + run + "-%");
                ps.executeUpdate();
            }
            return null;
        });
        AtomicInteger leads = new AtomicInteger();
        OutboxRetention retention = new OutboxRetention(outbox, TestAudit.on(database), () -> leads.get() > 0, Duration.ofDays(1), true);
        assertEquals(0, retention.sweep(now), "a replica that does not lead sweeps nothing");
        long old = count(database, "select count(*) from chat_outbox where status <> 'PENDING' and done_at < '"
                + java.sql.Timestamp.from(now.minus(Duration.ofDays(1))) + "'");
        leads.set(1);
        long swept = retention.sweep(now);
        assertEquals(old, swept);
        assertTrue(swept >= 2, swept + " swept");
        assertEquals(0, count(database, "select count(*) from chat_outbox where thread_key like 'inc-" + run + "-old%'"));
        assertEquals(2, count(database, "select count(*) from chat_outbox where thread_key in ('inc-" + run + "-recent', 'inc-"
                + run + "-waiting')"), "the recent message and the pending one stay");
        String cut = now.minus(Duration.ofDays(1)).toString();
        List<JsonNode> records = TestAudit.reader(database).find(new AuditQuery(null, AuditKind.CHAT_OUTBOX_SWEPT, null, null, null,
                null, null, 10_000)).stream().map(r -> r.payload()).filter(p -> p.path("doneBefore").asText().equals(cut)).toList();
        assertEquals(1, records.size(), "one audited record per sweep: " + records);
        assertEquals(swept, records.get(0).path("deleted").asLong(), records.toString());
        assertEquals(0, retention.sweep(now), "nothing left to sweep");
    }

    @Test
    void withoutAChannelThatTellsIncidentsAnIdleSenderWaitsToBeWokenYetSendsARetryOnTime() throws Exception {
        Database database = TestDatabases.h2();
        ChatOutbox outbox = new ChatOutbox(database);
        AtomicInteger calls = new AtomicInteger();
        // The first attempt is refused for now: its retry is due 300 ms later, long before the idle tick.
        Recorder replies = new Recorder(m -> calls.incrementAndGet() == 1 ? Delivery.retry(null, "HTTP 502") : Delivery.ok("posted"));
        try (OutboxSender s = new OutboxSender(outbox, List.of(replies), TestAudit.on(database), "replica", Duration.ofMillis(300),
                Duration.ofMinutes(1), Duration.ofMillis(20), Duration.ofSeconds(20), OutboxSender.LEASE).start()) {
            Thread.sleep(300);
            assertTrue(queue(database, outbox, null, "queued elsewhere, no wake"));
            Thread.sleep(1500);
            assertEquals(0, replies.attempts.size(), "an idle sender of a channel without notices polled");
            long woken = System.nanoTime();
            s.wake();
            await(() -> replies.attempts.size() == 2, "sent after its retry");
            long took = (System.nanoTime() - woken) / 1_000_000;
            assertTrue(took < 5_000, "the retry waited for the idle tick: " + took + " ms");
        }
        // A channel that tells incidents: a notice another replica queued is noticed without a wake.
        Recorder notices = new Recorder(m -> Delivery.ok("posted"));
        Outbound noticeHandler = new Outbound() {
            @Override
            public String channel() {
                return "slack";
            }

            @Override
            public String kind() {
                return Outgoing.NOTICE;
            }

            @Override
            public Delivery attempt(Outgoing m) {
                return notices.attempt(m);
            }
        };
        try (OutboxSender s = new OutboxSender(outbox, List.of(noticeHandler), TestAudit.on(database), "replica", Duration.ofMillis(20),
                Duration.ofMinutes(1), Duration.ofMillis(20), Duration.ofSeconds(20), OutboxSender.LEASE).start()) {
            Thread.sleep(300);
            database.transaction(tx -> outbox.enqueue(tx, new Outgoing.Draft("slack", Outgoing.NOTICE, "inc-polled", "escalated", "a notice")));
            long queued = System.nanoTime();
            await(() -> notices.attempts.size() == 1, "the notice sent");
            assertTrue((System.nanoTime() - queued) / 1_000_000 < 2_000, "a notice waited for the idle tick");
        }
    }

    @Test
    void aClaimLastsAsLongAsTheSenderIsConfiguredFor() throws Exception {
        Database database = TestDatabases.h2();
        ChatOutbox outbox = new ChatOutbox(database);
        for (Duration lease : List.of(Duration.ofSeconds(5), Duration.ofSeconds(45))) {
            String id = "inc-" + UUID.randomUUID();
            List<Long> heldFor = new CopyOnWriteArrayList<>();
            Recorder channel = new Recorder(m -> {
                heldFor.add(count(database, "select datediff('MILLISECOND', current_timestamp, claimed_until) from chat_outbox"
                        + " where incident_id = '" + id + "'"));
                return Delivery.ok("posted");
            });
            queue(database, outbox, id, "claimed");
            try (OutboxSender s = new OutboxSender(outbox, List.of(channel), TestAudit.on(database), "replica", Duration.ofMillis(20),
                    Duration.ofMinutes(1), Duration.ofMillis(20), Duration.ofSeconds(20), lease).start()) {
                await(() -> heldFor.size() == 1, "sent");
            }
            long held = heldFor.get(0);
            assertTrue(held > lease.toMillis() - 2_000 && held <= lease.toMillis(), "claimed for " + held + " ms, not " + lease);
        }
    }

    private static long count(Database database, String sql) {
        return database.read(c -> {
            try (var rs = c.createStatement().executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private static List<JsonNode> notifications(AuditReader audit, String incidentId) {
        return audit.find(AuditQuery.forIncident(incidentId)).stream().filter(r -> r.kind() == AuditKind.NOTIFICATION)
                .map(r -> r.payload()).toList();
    }

    private static void await(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (done.getAsBoolean()) return;
            Thread.sleep(20);
        }
        throw new AssertionError("not within 20 s: " + what);
    }
}
