package io.acceltriage.action;

import io.acceltriage.testing.AwaitedActions;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The loop through the running service's HTTP API: XID 48 on gpu-a100-06 GPU 0 (a notebook's
 * one GPU) is injected into the sandbox, the incident fences the node and proposes resetting that GPU,
 * the policy's named
 * approver approves it, the reset runs as a Job (the test policy's repair.resetMethod) the sandbox runs, the GPU comes back healthy with its
 * XID cleared, the node is schedulable again, and every step is in the incident's audit trail.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class GpuResetOverHttpTest {

    @Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @Inject
    io.acceltriage.store.Database freshDatabase;

    /**
     * Not the gpu-h100-04: its GPUs belong to a training gang, whose restart other tests of the
     * run may have put in its cooldown, and then the reset rightly refuses to move one member alone.
     */
    static final String NODE = "gpu-a100-06";
    static final int GPU = 0;

    @Inject
    io.acceltriage.store.Database database;

    @Test
    void xid48IsResetOnApprovalVerifiedAndTheNodeReturnsWithEveryStepAudited() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        try {
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + NODE + "\",\"gpu\":" + GPU + ",\"xid\":48}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> reset = AwaitedActions.await("reset-gpu", NODE + "/" + GPU, "awaiting_approval");
            assertTrue(node().get("cordoned").equals(Boolean.TRUE), "the node is fenced while the reset waits: " + node());
            assertEquals(7, node().get("allocatable"), "the device plugin took the GPU away");
            String incident = (String) reset.get("incident");

            JsonPath approved = given().contentType("application/json")
                    .body(Map.of("approver", "test-approver", "reason", "XID 48, reset per runbook"))
                    .post("/api/v1/actions/" + reset.get("id") + "/approve").then().statusCode(200).extract().jsonPath();
            assertEquals("succeeded", approved.getString("status"), approved.getString("message"));

            Map<String, Object> done = given().get("/api/v1/actions/" + reset.get("id")).then().statusCode(200).extract().jsonPath().getMap("");
            assertTrue(((String) done.get("detail")).contains("verified: GPU " + GPU + " of " + NODE + " is healthy"), done.toString());
            assertTrue(((String) done.get("detail")).contains("reset Job: GPU 00000000:00:04.0 was successfully reset. (Job acceltriage/reset-gpu"),
                    "the reset ran as a Job and its log is quoted: " + done);
            assertEquals(Boolean.FALSE, node().get("cordoned"), "the node is back in service");
            assertEquals(8, node().get("allocatable"), "all eight GPUs are advertised again");
            String exporter = given().get("/sandbox/exporter/" + NODE + "/metrics").then().statusCode(200).extract().asString();
            assertTrue(exporter.lines().anyMatch(l -> l.startsWith("DCGM_FI_DEV_XID_ERRORS{gpu=\"" + GPU + "\"") && l.endsWith(" 0")),
                    "the GPU reports no XID any more");

            List<Map<String, Object>> trail = given().queryParam("incident", incident).queryParam("limit", 500).get("/api/v1/audit")
                    .then().statusCode(200).extract().jsonPath().getList("items");
            List<String> resetSteps = trail.stream().filter(r -> r.get("payload") instanceof Map<?, ?> p
                    && ("reset-gpu".equals(p.get("kind")) || reset.get("id").equals(p.get("action"))))
                    .map(r -> r.get("kind") + " by " + r.get("actor")).toList();
            assertTrue(resetSteps.contains("approval by test-approver"), resetSteps.toString());
            assertTrue(resetSteps.contains("action.started by test-approver"), resetSteps.toString());
            assertTrue(resetSteps.stream().anyMatch(s -> s.startsWith("action.finished")), resetSteps.toString());
            assertTrue(resetSteps.stream().anyMatch(s -> s.startsWith("verification")), resetSteps.toString());
            for (String k : List.of("alert.filed", "evidence.collected", "diagnosis", "proposal", "verdict")) {
                assertTrue(trail.stream().anyMatch(r -> k.equals(r.get("kind")) && (!k.equals("proposal") && !k.equals("verdict")
                        || String.valueOf(r.get("payload")).contains("reset-gpu"))), k + " is audited: "
                        + trail.stream().map(r -> r.get("kind")).toList());
            }
            given().get("/api/v1/audit/verify").then().statusCode(200).body("intact", equalTo(true));
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, NODE);
        }
    }

    private Map<String, Object> node() {
        List<Map<String, Object>> nodes = given().get("/api/v1/sandbox/nodes").jsonPath().getList("");
        return nodes.stream().filter(n -> NODE.equals(n.get("name"))).findFirst().orElseThrow();
    }

}
