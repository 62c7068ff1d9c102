package io.acceltriage.triage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.sandbox.RequestGate;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Through the running service: an action that hangs (the API server holds its cordon) does not hold the next
 * incident's decision. Before the triage pool and the executor's own workers, one thread triaged and acted, so
 * the second fault waited for the first one's cordon however long it took.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class ActionsOffTheTriagePathOverHttpTest {

    /** The TPU pool's two nodes: no other test faults them. */
    static final String HELD = "tpu-v5e-02";
    static final String NEXT = "tpu-v5e-01";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Inject
    Sandbox sandbox;

    @Test
    void aDecisionIsRecordedWhileAnotherIncidentsCordonIsStillHeldByTheApiServer() throws Exception {
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, HELD);
        FreshFleet.forget(database, NEXT);
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        String heldPath = "/api/v1/nodes/" + HELD;
        sandbox.gate(new RequestGate() {
            @Override
            public boolean admit(String method, String path) {
                // Once the fault is in: every change of the node (the cordon) waits until the test lets it go.
                if (armed.get() && !method.equals("GET") && path.startsWith(heldPath)) {
                    holding.countDown();
                    try {
                        release.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return true;
            }
        });
        try {
            inject(HELD);
            armed.set(true);
            assertTrue(holding.await(120, TimeUnit.SECONDS), "the first incident's cordon reached the API server");
            Map<String, Object> first = await("the first incident decided", () -> triaged(HELD));
            assertEquals("planned", cordonOf(HELD), "its cordon is in progress: " + first);

            inject(NEXT);
            Map<String, Object> second = await("the second incident decided while the cordon is held", () -> triaged(NEXT));
            assertTrue(second.get("family") != null, second.toString());
            assertEquals("planned", cordonOf(HELD), "decided while the first cordon was still held");
            assertEquals(1, release.getCount(), "nothing let the cordon go before the decision");

            release.countDown();
            await("the held cordon finished once let go", () -> "succeeded".equals(cordonOf(HELD)) ? Map.of() : null);
        } finally {
            release.countDown();
            sandbox.gate(RequestGate.OPEN);
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, HELD);
            FreshFleet.forget(database, NEXT);
        }
    }

    private static void inject(String node) {
        given().contentType("application/json").body("{\"kind\":\"node-not-ready\",\"node\":\"" + node + "\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
    }

    /** The incident of {@code node} once its decision is stored; null before. */
    private static Map<String, Object> triaged(String node) {
        List<Map<String, Object>> items = given().queryParam("node", node).get("/api/v1/incidents").jsonPath().getList("items");
        return items.stream().filter(i -> i.get("family") != null).findFirst().orElse(null);
    }

    /** The status of the cordon of {@code node}; null when there is none. */
    private static String cordonOf(String node) {
        List<Map<String, Object>> items = given().get("/api/v1/actions").jsonPath().getList("items");
        return items.stream().filter(a -> "cordon-node".equals(a.get("kind")) && node.equals(a.get("target")))
                .map(a -> String.valueOf(a.get("status")).toLowerCase()).findFirst().orElse(null);
    }

    private static Map<String, Object> await(String what, Supplier<Map<String, Object>> probe) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(45));
        while (Instant.now().isBefore(deadline)) {
            Map<String, Object> got = probe.get();
            if (got != null) return got;
            Thread.sleep(200);
        }
        throw new AssertionError("not within 45 s: " + what);
    }
}
