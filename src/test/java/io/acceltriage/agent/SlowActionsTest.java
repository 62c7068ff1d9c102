package io.acceltriage.agent;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.acceltriage.TestAuth;
import io.acceltriage.sandbox.RequestGate;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.testing.ServerProcess;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A drain or a gang restart waits minutes for the cluster; the next incident's decision must not wait
 * behind it. Here the API server answers a cordon 4 s late.
 */
@QuarkusTest
@ExtendWith(TestAuth.Approver.class)
class SlowActionsTest {

    static final Duration SLOW = Duration.ofSeconds(4);
    /** Nodes no other test of the shared profile uses, so no cooldown or open incident of theirs is in the way. */
    static final String CORDONED = "gpu-h100-06";
    static final String OTHER = "tpu-v5e-02";

    @Inject
    Sandbox sandbox;

    @Test
    void anIncidentIsDecidedWhileAnEarlierIncidentsActionIsStillRunning() {
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        given().contentType("application/json").body(Map.of("approver", "test-approver", "reason", "a clean start"))
                .post("/api/v1/breaker/reset").then().statusCode(200);
        RequestGate slowChanges = new RequestGate() {
            @Override
            public Duration delay(String method, String path, String body) {
                // The cordon, and only it: the fault injector edits the same node through the same server.
                return method.equals("PATCH") && body.contains("/spec/unschedulable") ? SLOW : Duration.ZERO;
            }
        };
        sandbox.cluster().apiServer().gate(slowChanges);
        try {
            String first = inject(Map.of("kind", "xid", "node", CORDONED, "gpu", 1, "xid", 79));
            Instant firstDecided = decidedAt(first);
            String second = inject(Map.of("kind", "node-not-ready", "node", OTHER));
            Instant secondDecided = decidedAt(second);
            Instant firstActed = firstActionFinished(CORDONED);
            assertNotNull(firstActed, "the first incident's cordon ran");
            assertTrue(secondDecided.isBefore(firstActed), "the second decision (" + secondDecided + ") waited for the first"
                    + " incident's action, which finished at " + firstActed + " (its decision: " + firstDecided + ")");
        } finally {
            sandbox.cluster().apiServer().gate(null);
            // Leave no open incident behind: a later test's alert on a node of the same workload would join it.
            awaitNoneTriaging();
            List.of(CORDONED, OTHER).forEach(SlowActionsTest::resolveOpenIncidents);
        }
    }

    /**
     * Tests share the store: an incident left open here would take in a later test's alert about the
     * same workload. Alertmanager's resolved notices close it, as in production.
     */
    private static void resolveOpenIncidents(String node) {
        for (Map<String, Object> i : given().queryParam("node", node).get("/api/v1/incidents").jsonPath()
                .<Map<String, Object>>getList("items")) {
            if ("resolved".equals(i.get("state"))) continue;
            List<Map<String, Object>> alerts = given().get("/api/v1/incidents/" + i.get("id")).jsonPath().getList("alerts.alert");
            for (Map<String, Object> a : alerts) {
                Map<String, Object> resolved = new java.util.LinkedHashMap<>(a);
                resolved.put("status", "resolved");
                resolved.put("endsAt", Instant.now().toString());
                given().header("Authorization", "Bearer test-token").contentType("application/json")
                        .body(Map.of("version", "4", "groupKey", a.get("groupKey"), "status", "resolved", "receiver", "acceltriage",
                                "alerts", List.of(resolved)))
                        .post("/api/v1/alerts").then().statusCode(200);
            }
            Instant deadline = Instant.now().plusSeconds(20);
            while (!"resolved".equals(given().get("/api/v1/incidents/" + i.get("id")).jsonPath().getString("state"))) {
                if (Instant.now().isAfter(deadline)) fail("incident " + i.get("id") + " on " + node + " did not resolve");
                ServerProcess.sleep(100);
            }
        }
    }

    private static void awaitNoneTriaging() {
        Instant deadline = Instant.now().plusSeconds(30);
        while (!given().queryParam("state", "triaging").get("/api/v1/incidents").jsonPath().getList("items").isEmpty()
                && Instant.now().isBefore(deadline)) {
            ServerProcess.sleep(100);
        }
    }

    /** Injects a fault and answers the fingerprint of the alert it fired. */
    private static String inject(Map<String, Object> fault) {
        return given().contentType("application/json").body(fault).post("/api/v1/sandbox/faults").then().statusCode(202)
                .body("delivered", equalTo(true)).extract().path("alert.fingerprint");
    }

    /** When the incident holding the alert stored its first diagnosis after the alert arrived. */
    private static Instant decidedAt(String fingerprint) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (Instant.now().isBefore(deadline)) {
            for (String id : given().queryParam("limit", 20).get("/api/v1/incidents").jsonPath().<String>getList("items.id")) {
                JsonPath incident = given().get("/api/v1/incidents/" + id).jsonPath();
                List<Map<String, Object>> alerts = incident.getList("alerts");
                for (Map<String, Object> a : alerts) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> alert = (Map<String, Object>) a.get("alert");
                    if (!fingerprint.equals(alert.get("fingerprint"))) continue;
                    Instant received = Instant.parse((String) a.get("receivedAt"));
                    List<Map<String, Object>> timeline = incident.getList("timeline");
                    for (Map<String, Object> r : timeline) {
                        Instant at = Instant.parse((String) r.get("at"));
                        if ("diagnosis".equals(r.get("kind")) && !at.isBefore(received)) return at;
                    }
                }
            }
            ServerProcess.sleep(50);
        }
        throw new AssertionError("no decision on alert " + fingerprint + " within 30 s");
    }

    private static Instant firstActionFinished(String node) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (Instant.now().isBefore(deadline)) {
            String id = given().queryParam("node", node).get("/api/v1/incidents").jsonPath().getString("items[0].id");
            List<Map<String, Object>> timeline = given().get("/api/v1/incidents/" + id).jsonPath().getList("timeline");
            for (Map<String, Object> r : timeline) {
                if ("action.finished".equals(r.get("kind")) || "action.failed".equals(r.get("kind"))) {
                    return Instant.parse((String) r.get("at"));
                }
            }
            ServerProcess.sleep(100);
        }
        return null;
    }
}
