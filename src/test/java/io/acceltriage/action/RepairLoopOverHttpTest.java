package io.acceltriage.action;

import io.acceltriage.testing.AwaitedActions;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The repair half of the loop through the running service's HTTP API: XID 79 (off the bus, only a
 * reboot clears it) on gpu-a100-06 is injected into the sandbox; the incident proposes reboot-node,
 * validate-node and return-node; the approver approves the validation early (kept until the repair
 * answers) and then the hand-over; the simulated repairer reboots the node, the leader's loop runs the
 * DCGM diagnostic Job, whose JSON says Pass; return-node is proposed then and takes the node back.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class RepairLoopOverHttpTest {

    static final String NODE = "gpu-a100-06";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Test
    void xid79IsRepairedValidatedByItsDcgmDiagnosticAndOnlyThenReturned() {
        FreshFleet.prepare(database, breaker);
        try {
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + NODE + "\",\"gpu\":0,\"xid\":79}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> repair = AwaitedActions.await("reboot-node", NODE, "awaiting_approval");
            Map<String, Object> validate = AwaitedActions.await("validate-node", NODE, "awaiting_approval");
            Map<String, Object> back = AwaitedActions.await("return-node", NODE, "awaiting_approval");

            // Approved before the repair: kept, and run by the leader's loop once the repairer answered.
            JsonPath early = approve(validate);
            assertEquals("planned", early.getString("status"), early.getString("message"));
            assertTrue(early.getString("message").contains("runs once the step before it completes"), early.getString("message"));

            assertEquals("succeeded", approve(repair).getString("status"));
            await(() -> "succeeded".equals(status(validate)), "the validation ran after the repair: " + status(validate));
            assertEquals(Boolean.TRUE, node().get("cordoned"), "a repaired node stays fenced until it is returned");
            await(() -> String.valueOf(given().get("/api/v1/actions/" + back.get("id")).jsonPath().getString("detail"))
                    .contains("ready for approval: validate-node " + NODE + " passed"), "return-node is proposed once the validation passed");
            String detail = given().get("/api/v1/actions/" + validate.get("id")).then().statusCode(200).extract().jsonPath().getString("detail");
            assertTrue(detail.contains("passed validation: dcgmi diag -r 2: Pass"), detail);
            assertEquals(Boolean.TRUE, node().get("cordoned"), "validation alone never uncordons");

            JsonPath returned = approve(back);
            assertEquals("succeeded", returned.getString("status"), returned.getString("message"));
            assertEquals(Boolean.FALSE, node().get("cordoned"), "the node is back in service");

            List<Map<String, Object>> trail = given().queryParam("incident", validate.get("incident")).queryParam("limit", 500)
                    .get("/api/v1/audit").then().statusCode(200).extract().jsonPath().getList("items");
            List<String> steps = trail.stream().filter(r -> r.get("payload") instanceof Map<?, ?> p && validate.get("id").equals(p.get("action")))
                    .map(r -> String.valueOf(r.get("kind"))).toList();
            assertTrue(steps.containsAll(List.of("approval", "action.started", "action.finished", "verification")), steps.toString());
            given().get("/api/v1/audit/verify").then().statusCode(200).body("intact", equalTo(true));
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, NODE);
        }
    }

    private JsonPath approve(Map<String, Object> action) {
        return given().contentType("application/json").body(Map.of("approver", "test-approver", "reason", "XID 79 runbook"))
                .post("/api/v1/actions/" + action.get("id") + "/approve").then().statusCode(200).extract().jsonPath();
    }

    private static String status(Map<String, Object> action) {
        return given().get("/api/v1/actions/" + action.get("id")).then().statusCode(200).extract().jsonPath().getString("status");
    }

    private Map<String, Object> node() {
        List<Map<String, Object>> nodes = given().get("/api/v1/sandbox/nodes").jsonPath().getList("");
        return nodes.stream().filter(n -> NODE.equals(n.get("name"))).findFirst().orElseThrow();
    }

    private static void await(BooleanSupplier done, String what) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!done.getAsBoolean()) {
            assertFalse(Instant.now().isAfter(deadline), what);
            sleep();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(250);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
