package io.acceltriage.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.acceltriage.testing.ServerProcess;
import io.acceltriage.testing.ServiceProcess;
import io.acceltriage.testing.TcpProxy;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database goes away under traffic and comes back. The packaged service talks to a real PostgreSQL
 * (a database of this test's own) through a TCP proxy in this JVM; the test cuts every connection and
 * refuses new ones in the middle of a stream of webhook deliveries, then swallows new ones silently (a
 * partition), then restores them. While the database is gone the webhook answers 503 with Retry-After
 * within a bounded wait, whether the database refuses or never answers, and readiness is DOWN; afterwards
 * the service recovers by itself, Alertmanager's retries of the refused deliveries store each alert
 * once, and in PostgreSQL every alert has exactly one audit record, every audit record of an alert an
 * alert, and the hash chain verifies.
 */
class DatabaseOutageIT {

    static final String WEBHOOK = "outage-webhook-token";
    static final String VIEWER = "outage-viewer-token-0123456789";
    /** Every fingerprint of this test starts so, to find them in audit payloads whatever their shape. */
    static final String PREFIX = "db0e";
    static final Pattern FINGERPRINT = Pattern.compile(PREFIX + "[0-9a-f]{12}");
    static final int SENDERS = 4;
    static final int PER_BATCH = 5;
    /** The webhook's wait for the store is bounded; a delivery must be answered well within this. */
    static final Duration PROMPT = Duration.ofSeconds(10);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path dir;

    String adminUrl;
    String database;
    String directUrl;
    TcpProxy proxy;
    ServiceProcess service;

    @BeforeEach
    void freshDatabase() throws SQLException {
        adminUrl = System.getenv("ACCELTRIAGE_TEST_POSTGRES_URL");
        assumeTrue(adminUrl != null && !adminUrl.isBlank(),
                "ACCELTRIAGE_TEST_POSTGRES_URL is not set: the outage test needs a real PostgreSQL (.ci/run sets it)");
        database = "acceltriage_outage_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("create database " + database);
        }
        URI pg = URI.create(adminUrl.substring("jdbc:".length()));
        proxy = TcpProxy.to(pg.getHost(), pg.getPort());
        String query = pg.getRawQuery() == null ? "" : "?" + pg.getRawQuery();
        directUrl = "jdbc:postgresql://" + pg.getHost() + ":" + pg.getPort() + "/" + database + query;
        service = ServiceProcess.start(dir, Map.of(
                "ACCELTRIAGE_DB_URL", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database + query,
                "ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK,
                "ACCELTRIAGE_ACCESS_TOKENS", "outage-test:viewer:" + VIEWER));
    }

    @AfterEach
    void dropDatabase() throws SQLException {
        if (service != null) service.close();
        if (proxy != null) proxy.close();
        if (database != null) {
            try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
                st.execute("drop database if exists " + database + " with (force)");
            }
        }
    }

    @Test
    void theWebhookRefusesWhileTheDatabaseIsGoneAndNothingIsLostHalfWrittenOrStoredTwice() throws Exception {
        service.awaitReady(Duration.ofSeconds(90));

        // Alertmanager-like senders: each delivery a batch of new alerts; what is not answered 2xx is retried later.
        AtomicBoolean sending = new AtomicBoolean(true);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger acknowledged = new AtomicInteger();
        List<String> acked = new CopyOnWriteArrayList<>();
        ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
        List<String> unexpected = new CopyOnWriteArrayList<>();
        List<Thread> senders = new ArrayList<>();
        for (int s = 0; s < SENDERS; s++) {
            Thread t = new Thread(() -> {
                while (sending.get()) {
                    String batch = batch(next.getAndAdd(PER_BATCH));
                    Delivery d = deliver(batch);
                    if (d.code == 200) {
                        acked.add(batch);
                        acknowledged.incrementAndGet();
                    } else {
                        refused.add(batch);
                        if (d.code != 503 && d.code != -1) unexpected.add(d.code + " " + d.body);
                        ServerProcess.sleep(200); // Alertmanager backs off before retrying
                    }
                    if (d.took.compareTo(PROMPT) > 0) unexpected.add("a delivery took " + d.took.toMillis() + " ms");
                }
            }, "alertmanager-" + s);
            t.start();
            senders.add(t);
        }
        service.await("deliveries acknowledged before the outage", Duration.ofSeconds(30), () -> acknowledged.get() >= 20);

        proxy.cut();
        String waits;
        try {
            // The senders keep delivering into the outage; a delivery of our own shows what Alertmanager is told.
            Delivery during = deliver(batch(next.getAndAdd(PER_BATCH)));
            assertEquals(503, during.code, during.body);
            assertTrue(during.retryAfter != null && !during.retryAfter.isBlank(), "503 without Retry-After");
            assertTrue(during.body.contains("retry"), "503 without a reason: " + during.body);
            assertTrue(during.took.compareTo(PROMPT) < 0, "the webhook kept Alertmanager waiting " + during.took.toMillis() + " ms");
            refused.add(during.batch);
            service.awaitHealth(Duration.ofSeconds(20), 503);

            // A partition rather than a refusal: connections open and nothing ever answers. Still bounded.
            proxy.blackhole();
            Delivery silent = deliver(batch(next.getAndAdd(PER_BATCH)));
            assertEquals(503, silent.code, silent.body);
            assertTrue(silent.took.compareTo(PROMPT) < 0, "a silent database kept Alertmanager waiting " + silent.took.toMillis() + " ms");
            refused.add(silent.batch);
            waits = during.took.toMillis() + " ms refused, " + silent.took.toMillis() + " ms silent";
        } finally {
            proxy.restore();
        }
        service.awaitReady(Duration.ofSeconds(30));
        sending.set(false);
        for (Thread t : senders) t.join(60_000);
        assertTrue(unexpected.isEmpty(), "deliveries answered neither 200 nor 503, or slowly: " + unexpected + "\n" + service.logTail());
        assertTrue(proxy.refused() > 0, "the service never tried the database during the outage");

        // Alertmanager retries what was refused, and its next repeat re-sends some that were not.
        // Alertmanager keeps retrying a refused delivery with a back-off; while the backlog of the outage is filed
        // and triaged, a retry may be refused once more, but a recovered service must take each within a few tries.
        int storedBeforeTheirRefusal = 0;
        List<String> refusedAgain = new ArrayList<>();
        for (String batch : refused) {
            Delivery d = deliver(batch);
            for (int attempt = 1; d.code != 200 && attempt < 4; attempt++) {
                refusedAgain.add(d.code + " " + service.logTail().lines().filter(l -> l.contains("webhook answered 503"))
                        .reduce((first, last) -> last).orElse(d.body)); // the service's own reason
                ServerProcess.sleep(1_000);
                d = deliver(batch);
            }
            assertEquals(200, d.code, "a retry after the recovery, refused 4 times: " + d.body + "\n" + service.logTail());
            Matcher dup = Pattern.compile("\"duplicates\":(\\d+)").matcher(d.body);
            if (dup.find()) storedBeforeTheirRefusal += Integer.parseInt(dup.group(1));
        }
        for (String batch : acked.subList(0, Math.min(5, acked.size()))) {
            Delivery d = deliver(batch);
            assertEquals(200, d.code, d.body);
            assertTrue(d.body.contains("\"accepted\":0"), "a repeat of a stored delivery stored again: " + d.body);
        }

        int sent = next.get();
        Map<String, Integer> rows = new HashMap<>();
        Map<String, Integer> audited = new HashMap<>();
        try (Connection c = DriverManager.getConnection(directUrl)) {
            // One snapshot: the triage worker may still be filing alerts while we read.
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try (Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("select fingerprint from alerts")) {
                    while (rs.next()) rows.merge(rs.getString(1), 1, Integer::sum);
                }
                try (ResultSet rs = st.executeQuery("select payload from audit_log where kind = 'alert.received'")) {
                    while (rs.next()) {
                        Matcher m = FINGERPRINT.matcher(rs.getString(1));
                        while (m.find()) audited.merge(m.group(), 1, Integer::sum);
                    }
                }
            }
            c.rollback();
        }
        Set<String> all = new TreeSet<>();
        for (int i = 0; i < sent; i++) all.add(fingerprint(i));
        assertEquals(all, new TreeSet<>(rows.keySet()), "every alert sent is stored (and nothing else)");
        assertEquals(Set.of(1), Set.copyOf(rows.values()), "an alert stored twice: " + twice(rows));
        assertEquals(rows.keySet(), audited.keySet(), "an alert without its audit record, or an audit record without its alert");
        assertEquals(Set.of(1), Set.copyOf(audited.values()), "an alert audited twice: " + twice(audited));

        String verdict = service.get("/api/v1/audit/verify", VIEWER).body();
        assertTrue(verdict.contains("\"intact\":true"), verdict);
        System.out.printf("outage test: %d alerts in %d deliveries; %d refused during the outage and retried (%d of their alerts"
                + " had been stored: the answer was lost, not the alert; %d retries refused again after the recovery %s);"
                + " %d connections refused; the webhook answered 503 after %s%n",
                sent, sent / PER_BATCH, refused.size(), storedBeforeTheirRefusal, refusedAgain.size(), refusedAgain, proxy.refused(), waits);
    }

    record Delivery(String batch, int code, String body, String retryAfter, Duration took) {
    }

    private Delivery deliver(String batch) {
        long began = System.nanoTime();
        try {
            HttpResponse<String> r = service.postJson("/api/v1/alerts", WEBHOOK, batch);
            return new Delivery(batch, r.statusCode(), r.body(), r.headers().firstValue("Retry-After").orElse(null),
                    Duration.ofNanos(System.nanoTime() - began));
        } catch (UncheckedIOException e) {
            // no answer at all: Alertmanager retries this too
            return new Delivery(batch, -1, e.getMessage(), null, Duration.ofNanos(System.nanoTime() - began));
        }
    }

    private static String fingerprint(int i) {
        return PREFIX + String.format("%012x", i);
    }

    /** A version 4 payload of PER_BATCH new alerts, numbered from {@code first}. */
    private static String batch(int first) {
        List<String> alerts = new ArrayList<>();
        for (int i = first; i < first + PER_BATCH; i++) {
            alerts.add("""
                    {"status":"firing","labels":{"alertname":"OutageTestAlert","node":"outage-node-%d","severity":"warning"},\
                    "annotations":{"summary":"alert %d"},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z",\
                    "fingerprint":"%s"}""".formatted(i % 50, i, fingerprint(i)));
        }
        return """
                {"version":"4","groupKey":"{}:{alertname=\\"OutageTestAlert\\"}","status":"firing","receiver":"acceltriage",\
                "alerts":[%s]}""".formatted(String.join(",", alerts));
    }

    private static Map<String, Integer> twice(Map<String, Integer> counts) {
        Map<String, Integer> out = new HashMap<>();
        counts.forEach((k, v) -> {
            if (v > 1) out.put(k, v);
        });
        return Collections.unmodifiableMap(out);
    }
}
