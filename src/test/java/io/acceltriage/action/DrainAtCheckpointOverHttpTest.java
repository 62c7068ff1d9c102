package io.acceltriage.action;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.AwaitedActions;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node emptied for a device's replacement at the next checkpoint of the gang running there, through the running
 * service: a GPU of gpu-h100-02, under a member of the sandbox's pretraining JobSet (ml/llm-pretrain, which reports
 * its checkpoints in the annotation acceltriage.io/last-checkpoint), reaches the retired-pages limit. The node is
 * cordoned at once; the gang's restart and the node's drain are offered to a person and, approved, wait for the
 * gang's next checkpoint (the test profile's trainer checkpoints only when asked: POST /api/v1/sandbox/checkpoint),
 * then run: the gang restarts whole off the node and the node holds only DaemonSet pods.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class DrainAtCheckpointOverHttpTest {

    static final String GANG = "ml/llm-pretrain";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Test
    void aGpuDueForReplacementUnderAGangIsDrainedRightAfterTheGangsNextCheckpoint() throws Exception {
        String node = "gpu-h100-02";
        FreshFleet.prepare(database, breaker);
        try {
            given().contentType("application/json").body("{\"kind\":\"retired-pages\",\"node\":\"" + node + "\",\"gpu\":3}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> drain = AwaitedActions.await("drain-node", node, "awaiting_approval");
            Map<String, Object> restart = AwaitedActions.await("restart-group", GANG, "awaiting_approval");
            AwaitedActions.await("cordon-node", node, "succeeded");
            String incident = (String) drain.get("incident");
            JsonPath view = given().get("/api/v1/incidents/" + incident).then().statusCode(200).extract().jsonPath();
            assertEquals(true, view.getBoolean("assessment.workLost[0].atCheckpoint"), view.prettify());
            assertTrue(String.valueOf(drain.get("detail")).contains("at the next checkpoint of the gang on it"), drain.toString());

            approve(restart);
            JsonPath approved = approve(drain);
            assertEquals("planned", approved.getString("status"), approved.prettify());

            Thread.sleep(6_000); // more than a tick of the leader's loop: the drain still waits, and nothing was evicted
            Map<String, Object> waiting = action(drain);
            assertEquals("planned", waiting.get("status"), waiting.toString());
            assertTrue(String.valueOf(waiting.get("detail")).contains("waiting for checkpoint: JobSet " + GANG), waiting.toString());
            List<String> before = CheckpointRestartOverHttpTest.Pods.of(GANG);
            assertEquals(4, before.size());
            assertTrue(workloadPodsOn(node) > 0, "the gang's member still runs on " + node);

            given().post("/api/v1/sandbox/checkpoint").then().statusCode(200);
            Map<String, Object> drained = AwaitedActions.await("drain-node", node, "succeeded");
            Map<String, Object> restarted = AwaitedActions.awaitVerified("restart-group", GANG);
            String why = String.valueOf(restarted.get("detail"));
            assertTrue(why.contains("checkpointed at") && why.contains("after the restart was proposed") && why.contains("1 replaced (" + node),
                    why);
            // The drain ran after the gang restarted whole (it never evicts part of a gang): nothing of the gang was left to evict.
            assertFalse(String.valueOf(drained.get("detail")).contains("llm-pretrain"), drained.toString());
            assertTrue(CheckpointRestartOverHttpTest.Pods.of(GANG).stream().noneMatch(before::contains), "every member is new");
            assertEquals(0, workloadPodsOn(node), node + " holds only DaemonSet pods");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, node);
        }
    }

    private static JsonPath approve(Map<String, Object> action) {
        return given().contentType("application/json").body(Map.of("approver", "test-approver", "reason", "at the next checkpoint"))
                .post("/api/v1/actions/" + action.get("id") + "/approve").then().statusCode(200).extract().jsonPath();
    }

    private static Map<String, Object> action(Map<String, Object> a) {
        return given().get("/api/v1/actions/" + a.get("id")).then().statusCode(200).extract().jsonPath().getMap("");
    }

    /** Live pods on the node that no DaemonSet owns, read from the sandbox's simulated API server. */
    private static long workloadPodsOn(String node) {
        var client = io.quarkus.arc.Arc.container().instance(io.acceltriage.sandbox.Sandbox.class).get().client();
        return client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()) && p.getMetadata().getDeletionTimestamp() == null)
                .filter(p -> p.getMetadata().getOwnerReferences() == null
                        || p.getMetadata().getOwnerReferences().stream().noneMatch(o -> "DaemonSet".equals(o.getKind())))
                .count();
    }
}
