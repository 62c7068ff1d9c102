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
import java.sql.PreparedStatement;
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
 * carried out exactly once in the cluster they share, no chat message posted twice (nor an incident posted as a
 * new message twice), and the audit chain intact.
 *
 * <p>The cluster is one simulated cluster served by a fourth process ({@code java -jar … sandbox}: the sandbox
 * alone, no pipeline); the replicas reach it in kubeconfig mode through the kubeconfig it writes, as they would a
 * real API server, so actions are the Lease holder's and the writes they make are counted where they land. The
 * faults are injected there and the alerts they raise are what the test delivers; the replica holding the
 * actions Lease is the one killed.
 */
class ReplicasIT {

    static final String WEBHOOK = "replicas-webhook-token";
    static final String VIEWER = "replicas-viewer-token-0123456789";
    static final String DRIVER = "replicas-sandbox-driver-token-0123";
    static final int REPLICAS = 3;
    /** Triage workers per replica: as many triages as the kill can interrupt between their decision and their state. */
    static final int TRIAGE_WORKERS = 4;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps each replica's service.log
    Path dir;

    String adminUrl;
    String database;
    String url;
    final List<ServiceProcess> replicas = new ArrayList<>();
    ServiceProcess cluster;

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
        if (cluster != null) cluster.close();
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
        Path clusterDir = Files.createDirectories(dir.resolve("cluster"));
        cluster = ServiceProcess.startCommand(clusterDir, Map.of("ACCELTRIAGE_ACCESS_TOKENS", "replicas-driver:approver:" + DRIVER),
                List.of("sandbox"));
        cluster.awaitReady(Duration.ofSeconds(300));
        Path kubeconfig = clusterDir.resolve("sandbox-kubeconfig.yaml");
        cluster.await("the sandbox's kubeconfig", Duration.ofSeconds(120), () -> Files.exists(kubeconfig));
        // The default policy with room for the storm: what is checked here is that the allowed actions run once, not the caps.
        String policyText = Files.readString(Path.of("policies/default.yaml"));
        for (String[] loosen : new String[][] {{"maxCordonedShareOfPool: 0.10", "maxCordonedShareOfPool: 0.5"},
                {"maxActions: 10\n", "maxActions: 100\n"}, {"tripOnPoolCap: true", "tripOnPoolCap: false"},
                {"{action: cordon-node, max: 5, window: 1h, per: fleet}", "{action: cordon-node, max: 50, window: 1h, per: fleet}"}}) {
            assertTrue(policyText.contains(loosen[0]), "policies/default.yaml no longer says " + loosen[0]);
            policyText = policyText.replace(loosen[0], loosen[1]);
        }
        Path policy = Files.writeString(dir.resolve("policy.yaml"), policyText);
        String apiServer = Files.readAllLines(kubeconfig).stream().map(String::strip).filter(l -> l.startsWith("server:"))
                .map(l -> l.substring("server:".length()).strip()).findFirst().orElseThrow();
        for (int r = 0; r < REPLICAS; r++) {
            Path own = Files.createDirectories(dir.resolve("replica-" + r));
            Map<String, String> env = new LinkedHashMap<>();
            env.put("ACCELTRIAGE_DB_URL", url);
            env.put("ACCELTRIAGE_CLUSTER_MODE", "kubeconfig");
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("POD_NAME", "replica-" + r); // the identity in the actions Lease
            env.put("ACCELTRIAGE_POLICY_FILE", policy.toString());
            // The leader carries the storm's actions out one after another; a gang restart waits this long to see its pods move.
            env.put("ACCELTRIAGE_ACTIONS_VERIFY_TIMEOUT", "20s");
            env.put("ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK);
            env.put("ACCELTRIAGE_ACCESS_TOKENS", "replicas-test:viewer:" + VIEWER);
            env.put("ACCELTRIAGE_SLACK_BOT_TOKEN", "xoxb-test-token"); // the one FakeChat accepts: a refused post saves no thread
            env.put("ACCELTRIAGE_SLACK_API_URL", chat + "/slack/api");
            env.put("ACCELTRIAGE_SLACK_CHANNEL", channel);
            // Short leases, so the killed replica's triages are taken over within the test's patience.
            env.put("ACCELTRIAGE_TRIAGE_LEASE", "10s");
            env.put("ACCELTRIAGE_TRIAGE_WORKERS", Integer.toString(TRIAGE_WORKERS));
            env.put("ACCELTRIAGE_TRIAGE_LEASE_RENEWAL", "3s");
            // And the chat claim: the killed replica's message in flight is taken over within 10 s, not 30.
            env.put("ACCELTRIAGE_CHAT_OUTBOX_CLAIM", "10s");
            replicas.add(ServiceProcess.start(own, env));
        }
        for (ServiceProcess s : replicas) s.awaitReady(Duration.ofSeconds(400)); // three JVMs starting at once on a loaded machine
        String[] holder = {""};
        cluster.await("a replica holding the actions Lease", Duration.ofSeconds(60),
                () -> !(holder[0] = leaseHolder(apiServer)).isEmpty());
        int leader = Integer.parseInt(holder[0].substring("replica-".length()));

        // Mixed faults on 18 nodes of the shared cluster, fewer than a storm's threshold per alertname, each delivered as
        // the alert the sandbox raised for it; and a second alert for six of them that must join the first one's incident
        // whichever replica files it.
        List<String> bodies = new ArrayList<>();
        Map<String, Integer> alertsPerNode = new HashMap<>();
        for (int i = 1; i <= 8; i++) bodies.add(fault("xid", "gpu-h100-%02d".formatted(i), 79, alertsPerNode));
        for (int i = 1; i <= 4; i++) bodies.add(fault("dbe-ecc", "gpu-a100-%02d".formatted(i), null, alertsPerNode));
        for (int i = 5; i <= 6; i++) bodies.add(fault("row-remap-failure", "gpu-a100-%02d".formatted(i), null, alertsPerNode));
        for (int i = 7; i <= 8; i++) bodies.add(fault("device-plugin-crash", "gpu-a100-%02d".formatted(i), null, alertsPerNode));
        for (int i = 1; i <= 2; i++) bodies.add(fault("node-not-ready", "tpu-v5e-%02d".formatted(i), null, alertsPerNode));
        for (int i = 1; i <= 6; i++) bodies.add(alert("GpuTemperatureWatch", "gpu-h100-%02d".formatted(i), null, alertsPerNode));
        java.util.Collections.shuffle(bodies.subList(0, 18), new java.util.Random(14));
        int next = (leader + 1) % REPLICAS;
        int killedAt = bodies.size() / 2;
        java.sql.Timestamp killedTime = null;
        for (int n = 0; n < bodies.size(); n++) {
            if (n == killedAt) {
                replicas.get(leader).kill(); // SIGKILL, mid-storm, the actor, with work claimed and unfinished
                killedTime = java.sql.Timestamp.from(java.time.Instant.now());
            }
            next = deliver(bodies.get(n), next);
        }

        try (Connection db = DriverManager.getConnection(url)) {
            ServiceProcess survivor = replicas.get((leader + 1) % REPLICAS);
            survivor.await("every alert filed, every triage done, every allowed action carried out", Duration.ofSeconds(360), () -> settled(db));

            assertEquals(bodies.size(), count(db, "select count(*) from alerts"), "alerts stored");
            assertEquals(count(db, "select count(*) from alerts"), count(db, "select count(*) from audit_log where kind = 'alert.filed'"),
                    "each alert filed exactly once");
            assertEquals(0, count(db, "select count(*) from alerts where incident_id is null"), "every alert under an incident");
            assertEquals(alertsPerNode.size(), count(db, "select count(*) from incidents"), "one incident per subject: " + subjects(db));
            assertEquals(alertsPerNode.size(), count(db, "select count(distinct subject_key) from incidents"));
            assertEquals(alertsPerNode.size(), count(db, "select count(*) from audit_log where kind = 'incident.opened'"));

            // One triage per new alert: an incident is triaged at most once per firing alert filed under it, except
            // that the kill may have interrupted the killed replica's triages (one per triage worker) after their
            // decision was stored and before their state was: such an incident was diagnosed before the kill.
            long extra = 0;
            List<String> retriaged = new ArrayList<>();
            try (PreparedStatement ps = db.prepareStatement("select i.id, i.alert_count,"
                    + " (select count(*) from audit_log l where l.incident_id = i.id and l.kind = 'diagnosis'),"
                    + " (select count(*) from audit_log l where l.incident_id = i.id and l.kind = 'diagnosis' and l.at <= ?) from incidents i")) {
                ps.setTimestamp(1, killedTime);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        assertTrue(rs.getLong(3) >= 1, rs.getString(1) + " was never triaged");
                        long more = Math.max(0, rs.getLong(3) - rs.getLong(2));
                        if (more > 0) {
                            retriaged.add(rs.getString(1) + " +" + more);
                            assertTrue(rs.getLong(4) >= 1, rs.getString(1) + " triaged " + more + " more times than its alerts, none interrupted by the kill");
                        }
                        extra += more;
                    }
                }
            }
            assertTrue(extra <= TRIAGE_WORKERS, extra + " triages more than new alerts: " + retriaged);
            System.out.printf("ReplicasIT: %d triages taken over from the killed replica %s%n", extra, retriaged);

            // Each action carried out at most once: one started record per action (its id is in the payload).
            assertEquals(count(db, "select count(distinct payload) from audit_log where kind = 'action.started'"),
                    count(db, "select count(*) from audit_log where kind = 'action.started'"), "an action started twice");
            // And exactly once where it lands: the shared cluster saw each node that an action cordoned turn unschedulable
            // once, and no other node; each pod a restart or drain removed was removed once.
            List<String> writes = new ArrayList<>();
            Json.read(cluster.get("/api/v1/sandbox/writes", DRIVER).body(), JsonNode.class).path("writes").forEach(w -> writes.add(w.asText()));
            Map<String, Integer> cordons = new java.util.TreeMap<>();
            Map<String, Integer> podsRemoved = new java.util.TreeMap<>();
            for (String w : writes) {
                if (w.endsWith(" cordon")) cordons.merge(w.split(" ")[1].substring("/api/v1/nodes/".length()), 1, Integer::sum);
                if ((w.startsWith("DELETE /api/v1/namespaces/") && w.contains("/pods/")) || w.endsWith("/eviction")) {
                    podsRemoved.merge(w.split(" ")[1].replace("/eviction", ""), 1, Integer::sum);
                }
            }
            Map<String, Integer> fenced = new java.util.TreeMap<>();
            List<String> done = new ArrayList<>();
            try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(
                    "select kind, target, status, dry_run from actions order by created_at")) {
                while (rs.next()) {
                    done.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + (rs.getBoolean(4) ? " (dry run)" : ""));
                    boolean carriedOut = List.of("SUCCEEDED", "UNVERIFIED", "UNDONE").contains(rs.getString(3)) && !rs.getBoolean(4);
                    if (carriedOut && List.of("cordon-node", "drain-node").contains(rs.getString(1))) {
                        fenced.merge(rs.getString(2).replaceFirst("^(node/|Node/)", ""), 1, Integer::sum);
                    }
                }
            }
            System.out.printf("ReplicasIT: leader replica-%d killed; actions %s; cordons seen by the cluster %s; pods removed %s%n", leader,
                    done, cordons, podsRemoved);
            assertTrue(!fenced.isEmpty(), "no node was cordoned: the storm's allowed actions did not run: " + done);
            assertEquals(fenced, cordons, "the nodes cordoned in the shared cluster, against the cordons carried out: " + done);
            assertTrue(podsRemoved.values().stream().allMatch(n -> n == 1), "a pod removed twice: " + podsRemoved);

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
            // An update of a message already posted (chat.update at its ts) is the same whoever sends it twice: only a
            // taken-over post must look first.
            long retakenPosts = outcomes.stream().filter(o -> !o.contains("chat.update")).count();
            assertTrue(looks.size() >= retakenPosts, "a taken-over message was posted again without a look: " + looks + " " + outcomes);
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

    /** Injects a fault into the shared cluster; the webhook body of the alert it raised, to deliver. */
    private String fault(String kind, String node, Integer xid, Map<String, Integer> perNode) {
        perNode.merge(node, 1, Integer::sum);
        boolean ofAGpu = List.of("xid", "dbe-ecc", "row-remap-failure").contains(kind);
        String body = "{\"kind\":\"" + kind + "\",\"node\":\"" + node + "\"" + (ofAGpu ? ",\"gpu\":0" : "")
                + (xid == null ? "" : ",\"xid\":" + xid) + "}";
        HttpResponse<String> r = cluster.postJson("/api/v1/sandbox/faults", DRIVER, body);
        assertEquals(202, r.statusCode(), r.body());
        return Json.read(r.body(), JsonNode.class).path("payload").toString();
    }

    /** Who holds the actions Lease in the shared cluster; empty when nobody yet. */
    private static String leaseHolder(String apiServer) {
        try {
            String lease = get(apiServer.replaceAll("/$", "") + "/apis/coordination.k8s.io/v1/namespaces/acceltriage/leases/acceltriage-actor");
            return Json.read(lease, JsonNode.class).path("spec").path("holderIdentity").asText("");
        } catch (Exception notYet) {
            return "";
        }
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
