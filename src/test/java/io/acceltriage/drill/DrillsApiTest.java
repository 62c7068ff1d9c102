package io.acceltriage.drill;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The drills over HTTP on the test profile's sandbox: each bundled drill injects its fault, follows the
 * incident through its stages against the objectives (the defaults) and passes; the result is audited,
 * listed, and its incident closed afterwards. Bad requests get 400 with a reason, viewers may only read.
 */
@QuarkusTest
class DrillsApiTest {

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker breaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database database;

    @jakarta.inject.Inject
    io.acceltriage.incident.AlertInbox inbox;

    /** A drill answers when it is done: longer than a request's usual 30 s on a loaded machine. */
    static final io.restassured.config.RestAssuredConfig PATIENT = io.restassured.RestAssured.config().httpClient(
            io.restassured.config.HttpClientConfig.httpClientConfig().setParam("http.socket.timeout", 180_000));

    @Test
    void everyBundledDrillRunsOnTheSandboxMeetsTheObjectivesAndIsListed() {
        for (String name : List.of("xid79-training-node", "serving-gpu", "device-plugin")) {
            FreshFleet.prepare(database, breaker);
            JsonPath r = given().config(PATIENT).spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"" + name + "\"}")
                    .post("/api/v1/drills").then().statusCode(200).extract().jsonPath();
            List<Map<String, Object>> stages = r.getList("stages");
            assertTrue(r.getBoolean("passed"), name + " passed: " + r.prettify());
            assertEquals(name, r.getString("drill"));
            assertEquals("test-approver", r.getString("by"), "the signed-in person ran it");
            String incident = r.getString("incidentId");
            assertTrue(incident != null && !incident.isBlank(), r.prettify());
            List<String> expected = name.equals("device-plugin") ? List.of("decide") : List.of("decide", "mitigate", "verify");
            assertEquals(expected, stages.stream().map(s -> (String) s.get("stage")).distinct().toList(), r.prettify());
            for (Map<String, Object> s : stages) {
                assertTrue(s.get("tookSeconds") != null, "every stage is timed: " + s);
                assertTrue(List.of("met", "reached").contains(s.get("status")), s.toString());
            }
            assertTrue(stages.stream().anyMatch(s -> "decided".equals(s.get("objective")) && "met".equals(s.get("status"))),
                    "the decide stage is measured against the policy's objective: " + stages);
            // The timings are the incident's own, as the reliability report shows them.
            JsonPath rel = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=2020-01-01T00:00:00Z").then()
                    .statusCode(200).extract().jsonPath();
            assertEquals(rel.getDouble("timings.find { it.incidentId == '" + incident + "' }.secondsToDecide"),
                    ((Number) stages.get(0).get("tookSeconds")).doubleValue(), 0.0001);
            // The drill cleaned up: its alerts resolved, so its incident is closed and the next drill finds the node free.
            assertEquals("resolved", given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/incidents/" + incident).then()
                    .statusCode(200).extract().jsonPath().getString("state"));
        }
        JsonPath listed = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/drills").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("xid79-training-node", "serving-gpu", "device-plugin"), listed.getList("drills"));
        assertEquals(List.of("device-plugin", "serving-gpu", "xid79-training-node"), listed.getList("items.drill").subList(0, 3),
                "newest first");
        List<Object> audited = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=drill.finished").then()
                .statusCode(200).extract().jsonPath().getList("items.payload.stages");
        assertTrue(audited.size() >= 3, "each result is audited with its table: " + audited);
    }

    @Test
    void aShadowDrillDeliversItsAlertOnlyRunsItsIncidentDryAndSaysSo() {
        FreshFleet.prepare(database, breaker);
        JsonPath r = given().config(PATIENT).spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"xid79-training-node\",\"mode\":\"shadow\"}").post("/api/v1/drills").then().statusCode(200)
                .extract().jsonPath();
        assertEquals("shadow", r.getString("mode"), r.prettify());
        assertEquals(List.of("detect", "decide", "mitigate (dry run)"), r.getList("stages.stage").stream().distinct().toList(), r.prettify());
        String incident = r.getString("incidentId");
        // Nothing was injected: the sandbox's node reads healthy, so the responder found no fault and nothing would be mitigated.
        assertEquals("none", r.getString("family"), r.prettify());
        assertFalse(r.getBoolean("passed"));
        assertTrue(r.getString("problem").contains("a shadow drill's fault is an alert only"), r.prettify());
        List<String> forced = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=dry-run.forced&incident=" + incident)
                .then().statusCode(200).extract().jsonPath().getList("items.payload.drills.flatten()");
        assertTrue(forced.contains("xid79-training-node"), "the forced dry run is audited: " + forced);
        assertEquals(List.of("xid79-training-node"), inbox.ofIncident(incident).stream()
                .map(a -> a.alert().labels().get("acceltriage_drill")).distinct().toList(), "the incident's alerts carry the drill's marker");
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"serving-gpu\",\"mode\":\"chaos\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("sandbox (inject the fault"));
    }

    @Test
    void badRequestsAreRefusedWithAReasonAndViewersMayOnlyRead() {
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"xid80-nowhere\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("xid79-training-node"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"serving-gpu\",\"node\":\"x\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("\"node\" is unknown"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("name is required"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("[1,")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("JSON object"));
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).contentType("application/json").body("{\"name\":\"serving-gpu\"}")
                .post("/api/v1/drills").then().statusCode(403);
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/drills?limit=0").then().statusCode(400);
        assertFalse(given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/drills").then().statusCode(200).extract().jsonPath()
                .getList("drills").isEmpty());
    }
}
