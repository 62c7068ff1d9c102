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
 * Checkpoint-aware gang restarts through the running service: the sandbox's pretraining JobSet
 * (ml/llm-pretrain, four members of 8 GPUs on gpu-h100-01…04) reports its last checkpoint in the
 * annotation acceltriage.io/last-checkpoint. A degraded GPU under one member (XID 92, a high
 * single-bit ECC rate) gets a restart that waits for the gang's next checkpoint; a fatal XID restarts
 * it at once and says how much work that threw away. The test profile's trainer checkpoints only when
 * asked (POST /api/v1/sandbox/checkpoint), so the wait is the test's to end.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class CheckpointRestartOverHttpTest {

    static final String GANG = "ml/llm-pretrain";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Test
    void aDegradedGpuUnderAGangMemberRestartsTheGangAtItsNextCheckpointReplacingOnlyThatMember() throws Exception {
        String node = "gpu-h100-02";
        FreshFleet.prepare(database, breaker);
        try {
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":3,\"xid\":92}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> restart = AwaitedActions.await("restart-group", GANG, "awaiting_approval");
            Map<String, Object> cordon = AwaitedActions.await("cordon-node", node, "awaiting_approval");
            String incident = (String) restart.get("incident");
            JsonPath view = given().get("/api/v1/incidents/" + incident).then().statusCode(200).extract().jsonPath();
            assertEquals(32, view.getInt("assessment.workLost[0].gpus"), view.prettify());
            assertEquals(true, view.getBoolean("assessment.workLost[0].atCheckpoint"));
            assertEquals(GANG, view.getString("assessment.workLost[0].workload"));

            approve(cordon);
            JsonPath approved = approve(restart);
            assertEquals("planned", approved.getString("status"), approved.prettify());

            Thread.sleep(6_000); // more than a tick of the leader's loop: the restart still waits
            Map<String, Object> waiting = action(restart);
            assertEquals("planned", waiting.get("status"), waiting.toString());
            assertTrue(String.valueOf(waiting.get("detail")).contains("waiting for checkpoint"), waiting.toString());
            List<String> before = podsOfGang();
            assertEquals(4, before.size());
            List<Map<String, Object>> trail = given().queryParam("incident", incident).queryParam("limit", 500).get("/api/v1/audit")
                    .then().statusCode(200).extract().jsonPath().getList("items");
            assertEquals(1, trail.stream().filter(r -> r.get("payload") instanceof Map<?, ?> p && p.get("waiting") != null
                    && String.valueOf(p.get("waiting")).startsWith("waiting for checkpoint")).count(), "audited once: " + trail);

            given().post("/api/v1/sandbox/checkpoint").then().statusCode(200);
            Map<String, Object> done = AwaitedActions.awaitVerified("restart-group", GANG);
            String detail = String.valueOf(done.get("detail"));
            assertTrue(detail.contains("checkpointed at") && detail.contains("after the restart was proposed"), detail);
            assertTrue(detail.contains("3 restarted in place") && detail.contains("1 replaced (" + node + " → "), detail);
            assertTrue(podsOfGang().stream().noneMatch(before::contains), "every member is new");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, node);
        }
    }

    @Test
    void aFatalXidRestartsTheGangNowAndStatesTheWorkLost() {
        String node = "gpu-h100-03";
        FreshFleet.prepare(database, breaker);
        try {
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":2,\"xid\":48}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> done = AwaitedActions.await("restart-group", GANG, "succeeded");
            assertFalse(String.valueOf(done.get("detail")).contains("waiting for checkpoint"), done.toString());
            String incident = (String) done.get("incident");
            JsonPath view = given().get("/api/v1/incidents/" + incident).then().statusCode(200).extract().jsonPath();
            assertEquals(false, view.getBoolean("assessment.workLost[0].atCheckpoint"), view.prettify());
            assertEquals(32, view.getInt("assessment.workLost[0].gpus"));
            // The seeded checkpoint is 20 minutes older than the sandbox's last reset: 32 GPUs × ≥ 20 min ≥ 10.6 GPU-hours.
            long since = view.getLong("assessment.workLost[0].secondsSinceCheckpoint");
            assertTrue(since >= 1200, "seconds since checkpoint " + since);
            assertEquals(Math.round(since / 3600.0 * 32 * 10) / 10.0, view.getDouble("assessment.workLost[0].gpuHours"), 0.001);
            assertTrue(view.getString("summary").contains("Work lost: JobSet ml/llm-pretrain"), view.getString("summary"));

            String page = given().accept("text/html").get("/incidents/" + incident).then().statusCode(200).extract().asString();
            assertTrue(page.contains("id=\"work-lost\"") && page.contains("GPU-hours lost by the restart"), page);
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

    private static List<String> podsOfGang() {
        return Pods.of(GANG);
    }

    /** The gang's live member pods, read from the sandbox's simulated API server as the service reads it. */
    static final class Pods {
        static List<String> of(String gang) {
            var client = io.quarkus.arc.Arc.container().instance(io.acceltriage.sandbox.Sandbox.class).get().client();
            return client.pods().inNamespace("ml").withLabel("jobset.sigs.k8s.io/jobset-name", gang.substring(gang.indexOf('/') + 1))
                    .list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .map(p -> p.getMetadata().getUid()).toList();
        }
    }
}
