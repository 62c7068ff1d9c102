package io.acceltriage.ingest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.acceltriage.store.Database;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The Alertmanager webhook over real HTTP: what it stores, what it refuses, and why. */
@QuarkusTest
class AlertsWebhookTest {

    static final String TOKEN = "Bearer test-token";

    @Inject
    Database database;

    static String payload(String groupKey, String fingerprint, String node) {
        return """
                {"version":"4","groupKey":"%s","truncatedAlerts":0,"status":"firing","receiver":"acceltriage",
                 "groupLabels":{"alertname":"GpuTemperatureWatch"},"commonLabels":{},"commonAnnotations":{},
                 "externalURL":"http://alertmanager:9093","someFieldFromANewerAlertmanager":{"x":1},
                 "alerts":[{"status":"firing","labels":{"alertname":"GpuTemperatureWatch","node":"%s","severity":"info"},
                   "annotations":{"summary":"watch"},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z",
                   "generatorURL":"http://prometheus/graph","fingerprint":"%s"}]}
                """.formatted(groupKey, node, fingerprint);
    }

    long storedWithGroupKey(String groupKey) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from alerts where group_key = ?")) {
                ps.setString(1, groupKey);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    @Test
    void storesAnAlertOnceHoweverOftenAlertmanagerResendsIt() {
        String group = "{}:{g=" + UUID.randomUUID() + "}";
        String body = payload(group, "a1b2c3d4e5f60718", "cpu-system-01");
        given().header("Authorization", TOKEN).contentType("application/json").body(body)
                .post("/api/v1/alerts").then().statusCode(200).body("accepted", equalTo(1)).body("duplicates", equalTo(0));
        given().header("Authorization", TOKEN).contentType("application/json").body(body)
                .post("/api/v1/alerts").then().statusCode(200).body("accepted", equalTo(0)).body("duplicates", equalTo(1));
        assertEquals(1, storedWithGroupKey(group));
    }

    /**
     * Concurrent deliveries are committed together (one transaction for those waiting at once): an alert carried
     * by several of them is still stored once, audited once, and counted new by exactly one receipt.
     */
    @Test
    void concurrentDeliveriesOfOverlappingAlertsStoreAndAuditEachAlertOnce() throws Exception {
        String id = UUID.randomUUID().toString();
        String group = "{}:{g=" + id + "}";
        int deliveries = 24;
        int distinct = 30;
        java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newFixedThreadPool(12);
        java.util.List<java.util.concurrent.Future<io.restassured.response.Response>> answers = new java.util.ArrayList<>();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        for (int d = 0; d < deliveries; d++) {
            StringBuilder alerts = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                int n = (d * 7 + i) % distinct; // each alert in several deliveries
                if (i > 0) alerts.append(',');
                alerts.append("""
                        {"status":"firing","labels":{"alertname":"GpuTemperatureWatch","node":"cpu-group-%02d","severity":"info"},
                         "annotations":{},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"f%015d"}
                        """.formatted(n, n));
            }
            String body = """
                    {"version":"4","groupKey":"%s","status":"firing","receiver":"acceltriage","alerts":[%s]}
                    """.formatted(group, alerts);
            answers.add(senders.submit(() -> {
                go.await();
                return given().header("Authorization", TOKEN).contentType("application/json").body(body).post("/api/v1/alerts");
            }));
        }
        go.countDown();
        int accepted = 0;
        for (var answer : answers) {
            io.restassured.response.Response r = answer.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), r.asString());
            accepted += r.jsonPath().getInt("accepted");
            assertEquals(10, r.jsonPath().getInt("accepted") + r.jsonPath().getInt("duplicates"), r.asString());
        }
        senders.shutdown();
        assertEquals(distinct, accepted, "receipts counted an alert new more or less than once");
        assertEquals(distinct, storedWithGroupKey(group));
        long audited = database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from audit_log where kind = 'alert.received' and payload like ?")) {
                ps.setString(1, "%" + id + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        assertEquals(distinct, audited, "an alert audited more or less than once");
    }

    /** Whatever the webhook accepts must also fit an incident, or it would sit in the inbox unfiled. */
    @Test
    void aWorkloadWithTheLongestNamesTheWebhookAcceptsIsFiledUnderAnIncident() {
        String namespace = "ns-" + "n".repeat(60); // a namespace is a DNS-1123 label: 63 characters at most
        String workload = "w".repeat(253);
        String body = """
                {"version":"4","groupKey":"{}:{g=long-names}","status":"firing","receiver":"acceltriage",
                 "alerts":[{"status":"firing","labels":{"alertname":"LwsGroupUnavailable","namespace":"%s","leaderworkerset":"%s"},
                   "annotations":{},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"10a9e5ab1e000001"}]}
                """.formatted(namespace, workload);
        given().header("Authorization", TOKEN).contentType("application/json").body(body)
                .post("/api/v1/alerts").then().statusCode(200).body("accepted", equalTo(1));
        long deadline = System.currentTimeMillis() + 20_000;
        String filedUnder = null;
        while (filedUnder == null && System.currentTimeMillis() < deadline) {
            filedUnder = database.read(c -> {
                try (var ps = c.prepareStatement("select incident_id from alerts where fingerprint = ? and processed_at is not null")) {
                    ps.setString(1, "10a9e5ab1e000001");
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? rs.getString(1) : null;
                    }
                }
            });
            if (filedUnder == null) io.acceltriage.testing.ServerProcess.sleep(100);
        }
        assertNotNull(filedUnder, "the alert was never filed: its subject did not fit the incidents table");
        given().header("Authorization", "Bearer viewer-token-0123456789").get("/api/v1/incidents/" + filedUnder).then()
                .statusCode(200).body("subject", equalTo("workload:" + namespace + "/leaderworkerset/" + workload));
    }

    @Test
    void refusesAMissingOrWrongTokenAndStoresNothing() {
        String group = "{}:{g=" + UUID.randomUUID() + "}";
        given().contentType("application/json").body(payload(group, "0000000000000001", "n1"))
                .post("/api/v1/alerts").then().statusCode(401).body("error", containsString("ACCELTRIAGE_ALERTMANAGER_TOKEN"));
        given().header("Authorization", "Bearer wrong").contentType("application/json").body(payload(group, "0000000000000001", "n1"))
                .post("/api/v1/alerts").then().statusCode(401).body("error", containsString("does not match"));
        assertEquals(0, storedWithGroupKey(group));
    }

    @Test
    void acceptsBasicAuthWithTheTokenAsPassword() {
        String group = "{}:{g=" + UUID.randomUUID() + "}";
        given().auth().preemptive().basic("alertmanager", "test-token").contentType("application/json")
                .body(payload(group, "0000000000000002", "n1"))
                .post("/api/v1/alerts").then().statusCode(200).body("accepted", equalTo(1));
    }

    @Test
    void explainsMalformedJsonAndStoresNothing() {
        String group = "{}:{g=" + UUID.randomUUID() + "}";
        String truncated = payload(group, "0000000000000003", "n1");
        truncated = truncated.substring(0, truncated.length() / 2);
        given().header("Authorization", TOKEN).contentType("application/json").body(truncated)
                .post("/api/v1/alerts").then().statusCode(400).body("error", containsString("malformed JSON"));
        assertEquals(0, storedWithGroupKey(group));
    }

    @Test
    void namesTheFieldOfAWrongType() {
        given().header("Authorization", TOKEN).contentType("application/json").body("{\"version\":\"4\",\"alerts\":{\"a\":1}}")
                .post("/api/v1/alerts").then().statusCode(400).body("error", containsString("alerts"));
        given().header("Authorization", TOKEN).contentType("application/json")
                .body("{\"version\":\"4\",\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":\"X\"},\"startsAt\":\"yesterday\"}]}")
                .post("/api/v1/alerts").then().statusCode(400).body("error", containsString("alerts[0].startsAt"));
        given().header("Authorization", TOKEN).contentType("application/json")
                .body("{\"version\":\"4\",\"alerts\":[{\"status\":\"pending\",\"labels\":{\"alertname\":\"X\"},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}")
                .post("/api/v1/alerts").then().statusCode(400).body("error", containsString("alerts[0].status"));
        given().header("Authorization", TOKEN).contentType("application/json").body("{\"version\":\"4\"}")
                .post("/api/v1/alerts").then().statusCode(400).body("error", containsString("missing field \"alerts\""));
    }

    @Test
    void refusesAnOversizedBody() {
        String huge = "{\"version\":\"4\",\"alerts\":[],\"pad\":\"" + "x".repeat(1_100_000) + "\"}";
        given().header("Authorization", TOKEN).contentType("application/json").body(huge)
                .post("/api/v1/alerts").then().statusCode(413);
    }
}
