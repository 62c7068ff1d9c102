package io.acceltriage.reliability;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sandbox XID 79 measured against the test policy's objectives (the defaults) over HTTP: decided and
 * mitigated in time, shown on the incident page with its runbook; a day later, with the node still fenced and the incident open, the breaches are
 * audited, told to people and counted on /metrics — once each, however often the watch runs.
 */
@QuarkusTest
class ObjectiveBreachTest {

    static final String NODE = "gpu-h100-08";

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;

    @jakarta.inject.Inject
    ObjectiveWatch watch;

    @jakarta.inject.Inject
    io.acceltriage.notify.IncidentMessages messages;

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void anXid79IsMeasuredAgainstTheObjectivesAndItsBreachesAreToldOnce() throws Exception {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + NODE + "\",\"gpu\":2,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
        String id = awaitCordoned();

        JsonPath report = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=2020-01-01T00:00:00Z").then()
                .statusCode(200).extract().jsonPath();
        Map<String, String> status = statuses(report, id);
        assertEquals("met", status.get("decided"), "decided within a minute: " + status);
        assertEquals("met", status.get("device-mitigated"), "the cordon ran within 2 minutes: " + status);
        assertEquals("pending", status.get("resolved"), status.toString());
        assertTrue(!status.containsKey("infrastructure-mitigated"), "an objective of another family does not apply: " + status);
        // The incident page's recovery section: stage times, the objectives, the XID 79 runbook with NVIDIA's guide.
        String page = given().get("/incidents/" + id).then().statusCode(200).extract().asString();
        assertTrue(page.contains("id=\"reliability\"") && page.contains("<code>device-mitigated</code>")
                && page.contains("objective-met"), page);
        assertTrue(page.contains("<code>xid-79-fallen-off-bus</code>") && page.contains("https://docs.nvidia.com/deploy/xid-errors/index.html"),
                "the runbook chosen from the diagnosis: " + page);
        // The chat message (Slack, Teams, the log) carries the runbook in what a person must do.
        var message = messages.of(new io.acceltriage.notify.Notice(id, "escalated", "node:" + NODE, "device", 0.9, "s", List.of(), null));
        assertTrue(message.todo().stream().anyMatch(t -> t.startsWith("follow runbook xid-79-fallen-off-bus")
                && t.contains("https://docs.nvidia.com/deploy/xid-errors/index.html")), "to do: " + message.todo());
        int fenced = report.getInt("timings.find { it.incidentId == '" + id + "' }.gpusFenced");
        // GPU-hours lost by kind: the cordon's fencing only (nothing restarted, no slowdown measured), the total their sum.
        Map<String, Object> lost = report.getMap("timings.find { it.incidentId == '" + id + "' }.lost");
        assertEquals(0.0, ((Number) lost.get("workLost")).doubleValue(), lost.toString());
        assertEquals(0.0, ((Number) lost.get("slowed")).doubleValue(), lost.toString());
        assertEquals(report.getDouble("timings.find { it.incidentId == '" + id + "' }.gpuHoursLost"), ((Number) lost.get("total")).doubleValue(),
                0.0001, lost.toString());
        assertTrue(page.contains("fenced · work lost · slowed") && page.contains("class=\"gpu-hours-kinds\""), "the page shows the kinds apart");

        // A day and two hours later: still open, its node still fenced (8 GPUs × 26 h is over 200 on its own, whatever
        // other tests of the run left fenced in the pool).
        Instant later = Instant.now().plus(Duration.ofHours(26));
        assertTrue(watch.check(later) >= 1);
        List<String> breached = given().spec(TestAuth.bearer(TestAuth.VIEWER))
                .get("/api/v1/audit?kind=objective.breached&incident=" + id).then().statusCode(200).extract().jsonPath()
                .getList("items.payload.objective");
        assertEquals(8, fenced, "the cordon fenced the H100 node's 8 GPUs");
        assertEquals(List.of("device-node-returned", "gpu-hours-lost", "resolved"), breached.stream().sorted().toList(),
                "not returned after 4 h, not resolved after 24 h, and 8 GPUs × 26 h is over the pool's 200 GPU-hours a week");
        List<String> notified = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=notification&incident=" + id)
                .then().statusCode(200).extract().jsonPath().getList("items.payload.event");
        assertTrue(notified.contains("objective_breached"), "told through notify: " + notified);
        List<Object> reasons = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=escalation&incident=" + id)
                .then().statusCode(200).extract().jsonPath().getList("items.payload.reasons.flatten()");
        assertTrue(reasons.stream().anyMatch(r -> String.valueOf(r).startsWith("objective resolved missed: not at resolve after 26h")),
                "the person is told which objective and by how much: " + reasons);
        JsonPath escalation = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=escalation&incident=" + id).then()
                .extract().jsonPath();
        assertEquals("xid-79-fallen-off-bus", escalation.getString("items[-1].payload.runbook.id"),
                "the escalation's audit record names the runbook: " + escalation.prettify());
        assertTrue(!escalation.getList("items[-1].payload.runbook.next").isEmpty());
        assertEquals("https://docs.nvidia.com/deploy/xid-errors/index.html", escalation.getString("items[-1].payload.runbook.guide"));

        String metrics = given().get("/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("acceltriage_objective_breaches_total{family=\"device\",objective=\"resolved\""), metrics);

        long notifications = notified.size();
        watch.check(later.plusSeconds(60));
        assertEquals(breached.size(), given().spec(TestAuth.bearer(TestAuth.VIEWER))
                .get("/api/v1/audit?kind=objective.breached&incident=" + id).then().extract().jsonPath().getList("items").size(),
                "once per incident and objective");
        assertEquals(notifications, given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=notification&incident=" + id)
                .then().extract().jsonPath().getList("items").size(), "nothing told twice");
    }

    private static Map<String, String> statuses(JsonPath report, String id) {
        List<Map<String, Object>> checks = report.getList("objectives.find { it.incidentId == '" + id + "' }.checks");
        Map<String, String> out = new java.util.TreeMap<>();
        for (Map<String, Object> c : checks) out.put((String) c.get("objective"), (String) c.get("status"));
        return out;
    }

    private static String awaitCordoned() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            JsonPath list = given().queryParam("node", NODE).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            if (!list.getList("items").isEmpty()) {
                String id = list.getString("items[0].id");
                List<String> done = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath()
                        .getList("actions.findAll { it.kind == 'cordon-node' }.status");
                if (done.contains("SUCCEEDED")) return id;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no cordoned incident for " + NODE + " within 60 s");
    }
}
