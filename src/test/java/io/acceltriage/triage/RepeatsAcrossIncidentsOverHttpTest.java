package io.acceltriage.triage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.history.FaultHistory;
import io.acceltriage.history.GpuFault;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * #19 class 6 through the running service: a GPU hit by XID 31 from one pod yesterday (remembered in
 * the fault history) is hit by XID 31 from another pod today. One XID 31 alone is the application's;
 * across the two incidents it is the device. The GPU's history API then shows both faults.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class RepeatsAcrossIncidentsOverHttpTest {

    /** A serving node no other HTTP test faults. */
    static final String NODE = "gpu-a100-08";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Inject
    FaultHistory history;

    @Test
    void xid31FromAnotherPodADayAfterTheFirstIsTheDeviceAndTheHistoryShowsBoth() {
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, NODE); // another test of the run may have faulted this node: its past is not this test's
        try {
            String page = given().get("/sandbox/exporter/" + NODE + "/metrics").then().statusCode(200).extract().asString();
            Matcher held = Pattern.compile("DCGM_FI_DEV_XID_ERRORS\\{gpu=\"(\\d)\",UUID=\"([^\"]+)\"[^}]*namespace=\"([^\"]+)\",pod=\"([^\"]+)\"")
                    .matcher(page);
            assertTrue(held.find(), "a GPU of " + NODE + " held by a pod:\n" + page);
            String gpu = held.group(1);
            String uuid = held.group(2);
            String holder = held.group(3) + "/" + held.group(4);
            Instant yesterday = Instant.now().minus(Duration.ofDays(1));
            database.transaction(tx -> {
                history.record(tx, List.of(new GpuFault(NODE, gpu, uuid, 31, false, "research/eval-a-3", "exporter", "inc-yesterday",
                        yesterday)));
                return null;
            });

            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + NODE + "\",\"gpu\":" + gpu + ",\"xid\":31}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
            Map<String, Object> incident = awaitTriaged();
            assertEquals("device", incident.get("family"), "XID 31 from two pods across incidents is the GPU: " + incident);
            assertTrue(String.valueOf(incident.get("summary")).contains("across 2 incidents")
                    || given().get("/api/v1/incidents/" + incident.get("id")).asString().contains("across 2 incidents"),
                    "the verdict says why: " + incident);

            List<Map<String, Object>> faults = given().spec(TestAuth.bearer(TestAuth.VIEWER))
                    .get("/api/v1/gpus/" + NODE + "/" + gpu + "/history").then().statusCode(200)
                    .body("node", equalTo(NODE)).extract().jsonPath().getList("faults");
            assertEquals(List.of("inc-yesterday", incident.get("id")), faults.stream().map(f -> f.get("incidentId")).toList(),
                    "yesterday's fault and today's, oldest first: " + faults);
            assertEquals(List.of("research/eval-a-3", holder), faults.stream().map(f -> f.get("process")).toList());
            given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/gpus/" + uuid + "x/0/history").then().statusCode(400)
                    .body("error", containsString("node must be"));
            given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/gpus/" + NODE + "/nine/history").then().statusCode(400)
                    .body("error", containsString("gpu must be"));
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, NODE);
        }
    }

    /** Another serving node of its own: its GPU becomes a repeat offender. */
    static final String OFFENDER = "gpu-a100-09";

    @Test
    void theFifthFatalXidOnAGpuIsEscalatedForReplacementWithItsHistoryAndListedAsARepeatOffender() {
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, OFFENDER);
        String gpu = "3";
        String target = OFFENDER + "/" + gpu;
        try {
            Instant start = Instant.now();
            // Four earlier incidents over the last hours saw XID 48 on this GPU (their fault history). No action of
            // theirs is on record: the rule counts the history, the same record the fleet map marks offenders from.
            for (int i = 1; i <= 4; i++) {
                String earlier = "inc-earlier-" + i;
                Instant at = start.minus(Duration.ofHours(5 - i));
                database.transaction(tx -> {
                    history.record(tx, List.of(new GpuFault(OFFENDER, gpu, null, 48, true, "-", "exporter", earlier, at)));
                    return null;
                });
            }
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + OFFENDER + "\",\"gpu\":" + gpu + ",\"xid\":48}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
            Map<String, Object> incident = awaitTriaged(OFFENDER);
            io.restassured.path.json.JsonPath triaged = given().get("/api/v1/incidents/" + incident.get("id")).then().statusCode(200)
                    .extract().jsonPath();
            List<String> reasons = triaged.getList("assessment.escalationReasons");
            // The reset the policy would refuse is not proposed: the node goes to its repairer to be replaced, and says why.
            List<String> proposals = triaged.getList("assessment.judgements.collect { it.proposal.kind + ':' + it.proposal.target }");
            assertTrue(proposals.contains("replace-node:" + OFFENDER) && proposals.stream().noneMatch(p -> p.startsWith("reset-gpu:")),
                    "the GPU goes for replacement, not another reset: " + proposals);
            List<String> why = triaged.getList("assessment.judgements.findAll { it.proposal.kind == 'replace-node' }.proposal.reason");
            assertTrue(why.stream().anyMatch(r -> r.contains("repeat offender") && r.contains("contact support")),
                    "the replacement says why: " + why);
            String quoted = reasons.stream().filter(r -> r.startsWith("fault history of " + OFFENDER + " since")).findFirst()
                    .orElse(null);
            assertTrue(quoted != null, "the escalation carries the node's history for support: " + reasons);
            for (int i = 1; i <= 4; i++) {
                assertTrue(quoted.contains("XID 48 (fatal) on GPU " + gpu + " at " + start.minus(Duration.ofHours(5 - i)).toString()
                        .substring(0, 16)) && quoted.contains("(incident inc-earlier-" + i + ")"), quoted);
            }
            assertTrue(quoted.contains("XID 48 (fatal) on GPU " + gpu + " at") && quoted.endsWith("(this incident)"),
                    "today's fault is in it too: " + quoted);

            List<io.acceltriage.history.RepeatOffender> offenders = history.repeatOffenders(start.minus(Duration.ofDays(1)), 5);
            assertEquals(List.of(target), offenders.stream().map(o -> o.node() + "/" + o.gpu())
                    .filter(t -> t.startsWith("gpu-a100-")).toList(), "the fleet page's read: " + offenders);
            String fleet = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/fleet").then().statusCode(200).extract().asString();
            java.util.regex.Matcher tile = java.util.regex.Pattern.compile("<div class=\"node [a-z]+ repeat\" id=\"node-" + OFFENDER
                    + "\">.*?</div>", java.util.regex.Pattern.DOTALL).matcher(fleet);
            assertTrue(tile.find() && tile.group().contains("repeat offender GPU " + gpu + ": 5 fatal XIDs"),
                    "the fleet map marks the node and names its GPU: " + fleet);
            assertTrue(fleet.contains("<span class=\"node-key repeat\">"), "the legend explains the mark");
            given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/gpus/" + OFFENDER + "/" + gpu + "/history").then().statusCode(200)
                    .body("faults.size()", equalTo(5))
                    .body("remediations.kind", org.hamcrest.Matchers.hasItem("cordon-node"));
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            database.inTransaction(c -> {
                try (var ps = c.prepareStatement("delete from actions where target = ?")) {
                    ps.setString(1, target);
                    ps.executeUpdate();
                }
                return null;
            });
            FreshFleet.forget(database, OFFENDER);
        }
    }

    private Map<String, Object> awaitTriaged() {
        return awaitTriaged(NODE);
    }

    private Map<String, Object> awaitTriaged(String node) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (true) {
            List<Map<String, Object>> items = given().queryParam("node", node).get("/api/v1/incidents").jsonPath().getList("items");
            for (Map<String, Object> i : items) {
                if (i.get("family") != null && !"triaging".equals(i.get("state"))) return i;
            }
            assertFalse(Instant.now().isAfter(deadline), "no triaged incident on " + node + ": " + items);
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

}
