package io.acceltriage.drill;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
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
    void aShadowDrillLaysItsFaultOverItsOwnIncidentAsASyntheticReadingTimesEveryStageAndChangesNothing() throws Exception {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        JsonPath r = given().config(PATIENT).spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"xid79-training-node\",\"mode\":\"shadow\"}").post("/api/v1/drills").then().statusCode(200)
                .extract().jsonPath();
        assertEquals("shadow", r.getString("mode"), r.prettify());
        assertEquals(List.of("detect", "decide", "mitigate (dry run)"), r.getList("stages.stage").stream().distinct().toList(), r.prettify());
        String incident = r.getString("incidentId");
        // Nothing was injected and the node reads healthy: the drill's own fault, laid over its evidence, is what was diagnosed.
        assertEquals("device", r.getString("family"), r.prettify());
        assertTrue(r.getBoolean("passed"), "every stage timed, the would-be cordon within its objective: " + r.prettify());
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-04' }.cordoned", equalTo(false));
        JsonPath inc = given().get("/api/v1/incidents/" + incident).then().statusCode(200).extract().jsonPath();
        List<String> synthetic = inc.getList("assessment.evidence.items.findAll { it.source == 'DRILL' }.summary");
        assertEquals(1, synthetic.size(), inc.prettify());
        assertTrue(synthetic.get(0).contains("synthetic, not read from the cluster") && synthetic.get(0).contains("XID 79 on gpu-h100-04 GPU 3"),
                synthetic.get(0));
        assertTrue(inc.getList("assessment.evidence.items.findAll { it.source != 'DRILL' }.fact.findAll { it?.metric == "
                + "'DCGM_FI_DEV_XID_ERRORS' && it?.value == 79 }").isEmpty(), "the cluster's own readings show no XID: " + inc.prettify());
        List<String> audited = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=evidence.collected&incident=" + incident)
                .then().statusCode(200).extract().jsonPath().getList("items.payload.items.flatten().findAll { it.source == 'drill' }.summary");
        assertEquals(synthetic, audited, "the synthetic reading is in the audited evidence, as the drill's");
        assertFalse(given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/gpus/gpu-h100-04/3/history").then().statusCode(200)
                .extract().asString().contains(incident), "and never in the GPU's fault history");
        String page = given().get("/incidents/" + incident).then().statusCode(200).extract().asString();
        assertTrue(page.contains("synthetic, not read from the cluster"), "and on the incident page");
        assertTrue(inc.getList("actions.dryRun").stream().allMatch(Boolean.TRUE::equals) && !inc.getList("actions").isEmpty(),
                "every action a dry run: " + inc.getList("actions"));
        assertTrue(inc.getString("summary").startsWith("Shadow drill xid79-training-node: every action below is a dry run"),
                inc.getString("summary"));
        List<String> forced = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=dry-run.forced&incident=" + incident)
                .then().statusCode(200).extract().jsonPath().getList("items.payload.drills.flatten()");
        assertEquals(List.of("xid79-training-node"), forced, "the forced dry run is audited, once");
        List<Map<String, String>> labels = inbox.ofIncident(incident).stream().map(a -> a.alert().labels()).toList();
        assertEquals(List.of("xid79-training-node"), labels.stream().map(l -> l.get("acceltriage_drill")).distinct().toList(),
                "the incident's alerts carry the drill's marker");

        // The same marker and the finished run's own token, from Alertmanager: the incident runs dry, but nothing is laid over it.
        FreshFleet.forget(database, "gpu-h100-04");
        String token = labels.get(0).get(ShadowOverlay.RUN_LABEL);
        String fingerprint = Long.toHexString(System.nanoTime());
        String forged = """
                {"version":"4","groupKey":"{}:{alertname=\\"GpuXidDeviceFault\\"}","status":"%s","receiver":"acceltriage",
                 "alerts":[{"status":"%s","labels":{"alertname":"GpuXidDeviceFault","node":"gpu-h100-04","gpu":"3","xid":"79",
                   "acceltriage_drill":"xid79-training-node","acceltriage_drill_run":"%s"},"annotations":{},
                   "startsAt":"%s","endsAt":"%s","fingerprint":"%s"}]}
                """;
        java.time.Instant now = java.time.Instant.now();
        given().header("Authorization", "Bearer test-token").contentType("application/json")
                .body(forged.formatted("firing", "firing", token, now, "0001-01-01T00:00:00Z", fingerprint)).post("/api/v1/alerts").then()
                .statusCode(200);
        try {
            JsonPath other = awaitTriaged("gpu-h100-04", fingerprint);
            assertTrue(other.getList("assessment.evidence.items.findAll { it.source == 'DRILL' }").isEmpty(), other.prettify());
            assertEquals("none", other.getString("family"), "the healthy node's own readings decide: " + other.prettify());
            assertEquals(List.of("xid79-training-node"), given().spec(TestAuth.bearer(TestAuth.VIEWER))
                    .get("/api/v1/audit?kind=dry-run.forced&incident=" + other.getString("id")).then().statusCode(200).extract().jsonPath()
                    .getList("items.payload.drills.flatten()"), "the marker alone still forces the dry run");
        } finally {
            given().header("Authorization", "Bearer test-token").contentType("application/json")
                    .body(forged.formatted("resolved", "resolved", token, now, java.time.Instant.now(), fingerprint)).post("/api/v1/alerts");
        }
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"serving-gpu\",\"mode\":\"chaos\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("sandbox (inject the fault"));

        // On another node of the cluster ("node": a real cluster's names are not the drill file's).
        FreshFleet.forget(database, "gpu-h100-11");
        JsonPath moved = given().config(PATIENT).spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"xid79-training-node\",\"mode\":\"shadow\",\"node\":\"gpu-h100-11\"}").post("/api/v1/drills").then()
                .statusCode(200).extract().jsonPath();
        assertTrue(moved.getBoolean("passed"), moved.prettify());
        JsonPath there = given().get("/api/v1/incidents/" + moved.getString("incidentId")).then().statusCode(200).extract().jsonPath();
        assertEquals("gpu-h100-11", there.getString("node"), there.prettify());
        assertEquals(List.of("drill xid79-training-node (synthetic, not read from the cluster): XID 79 on gpu-h100-11 GPU 3"),
                there.getList("assessment.evidence.items.findAll { it.source == 'DRILL' }.summary"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-11' }.cordoned", equalTo(false));
    }

    @org.junit.jupiter.api.AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    /** The incident of the node whose alerts include {@code fingerprint}, once triaged. */
    private JsonPath awaitTriaged(String node, String fingerprint) throws InterruptedException {
        java.time.Instant deadline = java.time.Instant.now().plusSeconds(60);
        while (java.time.Instant.now().isBefore(deadline)) {
            for (String id : given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath()
                    .<String>getList("items.id")) {
                JsonPath one = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
                boolean ours = inbox.ofIncident(id).stream().anyMatch(a -> a.alert().fingerprint().equals(fingerprint));
                if (ours && one.get("assessment") != null && !"triaging".equals(one.getString("state"))) return one;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no triaged incident for the alert " + fingerprint + " within 60 s");
    }

    @Test
    void badRequestsAreRefusedWithAReasonAndViewersMayOnlyRead() {
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"xid80-nowhere\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("xid79-training-node"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"serving-gpu\",\"nodes\":\"x\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("\"nodes\" is unknown"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"serving-gpu\",\"mode\":\"shadow\",\"node\":\"gpu-nowhere-99\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("the cluster has no node 'gpu-nowhere-99'"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"serving-gpu\",\"mode\":\"shadow\",\"node\":\"GPU_node\"}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("not a Kubernetes node name"));
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"serving-gpu\",\"node\":7}")
                .post("/api/v1/drills").then().statusCode(400).body("error", containsString("node is the name of a node"));
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
