package io.acceltriage.triage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.chat.FakeChat;
import io.acceltriage.store.Json;
import io.acceltriage.testing.ServiceProcess;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three packaged services on one PostgreSQL database (of this test's own), as the production overlay
 * runs them behind one Service: a storm of mixed faults is delivered round-robin, one replica is
 * killed with SIGKILL in the middle of it, and deliveries it cannot take go to the next (what a
 * Service and Alertmanager's retry do). Afterwards: every alert filed exactly once, one incident per
 * subject, no more triages than new alerts (plus at most the one the kill interrupted), each action
 * carried out at most once, no chat message posted twice (nor an incident posted as a new message twice) but
 * the one the killed replica may have been sending when it died, and the audit chain intact.
 *
 * <p>Each service runs its own sandbox cluster (the nodes have the same names in each), so what is
 * checked here is the work the replicas share through the database.
 */
class ReplicasIT {

    static final String WEBHOOK = "replicas-webhook-token";
    static final String VIEWER = "replicas-viewer-token-0123456789";
    static final int REPLICAS = 3;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps each replica's service.log
    Path dir;

    String adminUrl;
    String database;
    String url;
    final List<ServiceProcess> replicas = new ArrayList<>();

    @BeforeEach
    void freshDatabase() throws SQLException {
        adminUrl = System.getenv("ACCELTRIAGE_TEST_POSTGRES_URL");
        assumeTrue(adminUrl != null && !adminUrl.isBlank(),
                "ACCELTRIAGE_TEST_POSTGRES_URL is not set: the replica test needs a real PostgreSQL (.ci/run sets it)");
        database = "acceltriage_replicas_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("create database " + database);
        }
        URI pg = URI.create(adminUrl.substring("jdbc:".length()));
        String query = pg.getRawQuery() == null ? "" : "?" + pg.getRawQuery();
        url = "jdbc:postgresql://" + pg.getHost() + ":" + pg.getPort() + "/" + database + query;
    }

    @AfterEach
    void dropDatabase() throws SQLException {
        replicas.forEach(ServiceProcess::close);
        if (database != null) {
            try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
                st.execute("drop database if exists " + database + " with (force)");
            }
        }
    }

    @Test
    void threeReplicasOnOneDatabaseShareAStormAndOneKilledMidwayLeavesNothingDoneTwiceOrLeftUndone() throws Exception {
        String chat = FakeChat.start().url();
        String channel = "C" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase();
        for (int r = 0; r < REPLICAS; r++) {
            Path own = Files.createDirectories(dir.resolve("replica-" + r));
            Map<String, String> env = new LinkedHashMap<>();
            env.put("ACCELTRIAGE_DB_URL", url);
            env.put("ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK);
            env.put("ACCELTRIAGE_ACCESS_TOKENS", "replicas-test:viewer:" + VIEWER);
            env.put("ACCELTRIAGE_SLACK_BOT_TOKEN", "xoxb-test-token"); // the one FakeChat accepts: a refused post saves no thread
            env.put("ACCELTRIAGE_SLACK_API_URL", chat + "/slack/api");
            env.put("ACCELTRIAGE_SLACK_CHANNEL", channel);
            // Short leases, so the killed replica's triages are taken over within the test's patience.
            env.put("ACCELTRIAGE_TRIAGE_LEASE", "10s");
            env.put("ACCELTRIAGE_TRIAGE_LEASE_RENEWAL", "3s");
            // And the chat claim: the killed replica's message in flight is taken over within 10 s, not 30.
            env.put("ACCELTRIAGE_CHAT_OUTBOX_CLAIM", "10s");
            replicas.add(ServiceProcess.start(own, env));
        }
        for (ServiceProcess s : replicas) s.awaitReady(Duration.ofSeconds(400)); // three JVMs starting at once on a loaded machine

        // Mixed faults on 18 nodes, fewer than a storm's threshold per alertname, and a second alert for six
        // of them that must join the first one's incident whichever replica files it.
        List<String> bodies = new ArrayList<>();
        Map<String, Integer> alertsPerNode = new HashMap<>();
        for (int i = 1; i <= 8; i++) bodies.add(alert("GpuXidDeviceFault", "gpu-h100-%02d".formatted(i), "79", alertsPerNode));
        for (int i = 1; i <= 8; i++) bodies.add(alert("GpuXidError", "gpu-a100-%02d".formatted(i), "48", alertsPerNode));
        for (int i = 1; i <= 2; i++) bodies.add(alert("TpuChipUnhealthy", "tpu-v5e-%02d".formatted(i), null, alertsPerNode));
        for (int i = 1; i <= 6; i++) bodies.add(alert("GpuTemperatureWatch", "gpu-h100-%02d".formatted(i), null, alertsPerNode));
        int next = 0;
        int killedAt = bodies.size() / 2;
        for (int n = 0; n < bodies.size(); n++) {
            if (n == killedAt) replicas.get(0).kill(); // SIGKILL, mid-storm, with work claimed and unfinished
            next = deliver(bodies.get(n), next);
        }

        try (Connection db = DriverManager.getConnection(url)) {
            ServiceProcess survivor = replicas.get(1);
            survivor.await("every alert filed and every triage done", Duration.ofSeconds(240), () -> settled(db));

            assertEquals(bodies.size(), count(db, "select count(*) from alerts where group_key like '%replicas=%'"), "alerts stored");
            assertEquals(count(db, "select count(*) from alerts"), count(db, "select count(*) from audit_log where kind = 'alert.filed'"),
                    "each alert filed exactly once");
            assertEquals(0, count(db, "select count(*) from alerts where incident_id is null"), "every alert under an incident");
            assertEquals(alertsPerNode.size(), count(db, "select count(*) from incidents"), "one incident per subject: " + subjects(db));
            assertEquals(alertsPerNode.size(), count(db, "select count(distinct subject_key) from incidents"));
            assertEquals(alertsPerNode.size(), count(db, "select count(*) from audit_log where kind = 'incident.opened'"));

            // One triage per new alert: an incident is triaged at most once per firing alert filed under it,
            // except that the kill may have interrupted one triage after its diagnosis was stored.
            long extra = 0;
            try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("select i.id, i.alert_count,"
                    + " (select count(*) from audit_log l where l.incident_id = i.id and l.kind = 'diagnosis') from incidents i")) {
                while (rs.next()) {
                    assertTrue(rs.getLong(3) >= 1, rs.getString(1) + " was never triaged");
                    extra += Math.max(0, rs.getLong(3) - rs.getLong(2));
                }
            }
            assertTrue(extra <= 1, extra + " triages more than new alerts");

            // Each action carried out at most once: one started record per action (its id is in the payload).
            assertEquals(count(db, "select count(distinct payload) from audit_log where kind = 'action.started'"),
                    count(db, "select count(*) from audit_log where kind = 'action.started'"), "an action started twice");

            // The outbox drains: a message the killed replica had claimed waits for its claim to run out (30 s).
            survivor.await("every chat message sent", Duration.ofSeconds(200),
                    () -> countOrMinusOne(db, "select count(*) from chat_outbox where status = 'PENDING'") == 0);
            // No chat message sent twice: the outbox queues a message once per moment of an incident and one replica
            // sends it; an incident's messages go out one at a time, so a later one updates the first post in place.
            List<String> posted = new ArrayList<>();
            Map<String, Integer> firstPosts = new HashMap<>();
            List<String> timed = new ArrayList<>();
            for (JsonNode r : Json.read(get(chat + "/_recorded?prefix=/slack/api/chat.postMessage"), JsonNode.class)) {
                JsonNode body = Json.read(r.path("body").asText(), JsonNode.class);
                if (!channel.equals(body.path("channel").asText())) continue;
                String text = body.path("text").asText();
                posted.add(text + body.path("thread_ts").asText() + body.path("blocks"));
                timed.add(r.path("at").asLong() + " " + text.split("\n", 2)[0] + " " + body.path("thread_ts").asText());
                if (body.path("thread_ts").isMissingNode()) firstPosts.merge(text.split(" ", 2)[0], 1, Integer::sum);
            }
            assertTrue(!posted.isEmpty(), "nothing reached the chat");
            String verdict = survivor.get("/api/v1/audit/verify", VIEWER).body();
            assertTrue(verdict.contains("\"intact\":true"), verdict);
            System.out.printf("ReplicasIT: %d chat messages posted, %d distinct, %d incidents posted%n", posted.size(),
                    posted.stream().distinct().count(), firstPosts.size());
            // Not even the message the killed replica was sending when it died (one sender thread per channel: at most
            // one), which may have reached Slack before its record: whoever takes its claim over looks in the channel (or
            // the thread) for the outbox id in the message metadata before posting it again.
            long retaken = count(db, "select count(*) from chat_outbox where retaken_from is not null");
            List<String> looks = new ArrayList<>();
            for (JsonNode r : Json.read(get(chat + "/_recorded?prefix=/slack/api/conversations."), JsonNode.class)) {
                if (r.path("body").asText().contains("channel=" + channel)) looks.add(r.path("path").asText());
            }
            List<String> outcomes = new ArrayList<>();
            try (var rs = db.createStatement().executeQuery("select kind, detail from chat_outbox where retaken_from is not null")) {
                while (rs.next()) outcomes.add(rs.getString(1) + ": " + rs.getString(2));
            }
            System.out.printf("ReplicasIT: %d chat messages taken over from the killed replica, %d looks in Slack (%s); %s%n", retaken,
                    looks.size(), looks, outcomes);
            assertTrue(retaken <= 1, retaken + " chat messages taken over from a dead sender");
            assertTrue(looks.size() >= retaken, "a taken-over message was sent again without a look: " + looks);
            assertEquals(0, posted.size() - posted.stream().distinct().count(), "a chat message posted twice: " + timed);
            assertEquals(0, firstPosts.values().stream().mapToInt(n -> n - 1).sum(),
                    "an incident posted as a new message twice: " + firstPosts + " " + timed);
            assertEquals(0, count(db, "select count(*) from chat_outbox where status <> 'SENT'"), "chat messages given up");
        }
    }

    /** Delivers to the replica after {@code from}; one that does not answer is passed over. Returns where the next begins. */
    private int deliver(String body, int from) {
        for (int tries = 0; tries < REPLICAS * 3; tries++) {
            ServiceProcess s = replicas.get((from + tries) % REPLICAS);
            try {
                HttpResponse<String> r = s.postJson("/api/v1/alerts", WEBHOOK, body);
                if (r.statusCode() == 200) return (from + tries + 1) % REPLICAS;
            } catch (UncheckedIOException | IllegalStateException dead) {
                // refused: the next replica takes it
            }
        }
        throw new AssertionError("no replica took a delivery");
    }

    private static String alert(String name, String node, String xid, Map<String, Integer> perNode) {
        perNode.merge(node, 1, Integer::sum);
        String fingerprint = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String labels = "\"alertname\":\"" + name + "\",\"node\":\"" + node + "\",\"severity\":\"critical\""
                + (xid == null ? "" : ",\"gpu\":\"0\",\"xid\":\"" + xid + "\"");
        return """
                {"version":"4","groupKey":"{}:{replicas=\\"%s\\"}","status":"firing","receiver":"acceltriage","alerts":[
                 {"status":"firing","labels":{%s},"annotations":{"summary":"%s on %s"},"startsAt":"2026-12-01T10:00:00Z",
                  "endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(fingerprint, labels, name, node, fingerprint);
    }

    /** Nothing waits to be filed or triaged, and no action is still planned. */
    private static boolean settled(Connection db) {
        try {
            return count(db, "select count(*) from alerts where processed_at is null") == 0
                    && count(db, "select count(*) from incidents where triage_wanted > triage_done") == 0
                    && count(db, "select count(*) from actions where status = 'PLANNED'") == 0;
        } catch (SQLException e) {
            return false;
        }
    }

    private static long countOrMinusOne(Connection db, String sql) {
        try {
            return count(db, sql);
        } catch (SQLException e) {
            return -1;
        }
    }

    private static String subjects(Connection db) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("select subject_key from incidents order by subject_key")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return String.join(", ", out);
    }

    private static long count(Connection db, String sql) throws SQLException {
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
