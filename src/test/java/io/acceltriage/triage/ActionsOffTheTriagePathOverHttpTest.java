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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Through the running service: an action in progress (the API server answers its cordon late) does not hold the next
 * incident's decision. Before the triage pool and the executor's own workers, one thread triaged and acted, so
 * the second fault waited for the first one's cordon however long it took.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class ActionsOffTheTriagePathOverHttpTest {

    /** XID 79 here asks for a cordon, which the API server holds; no other test of the shared service faults it. */
    static final String HELD = "gpu-a100-05";
    /** A TPU node not ready: a decision (a person must look at the host) without a cordon. No other test faults it. */
    static final String NEXT = "tpu-v5e-02";

    /** How late the API server answers the cordon. */
    static final Duration HOLD = Duration.ofSeconds(7);

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
        AtomicInteger held = new AtomicInteger();
        String heldPath = "/api/v1/nodes/" + HELD;
        sandbox.gate(new RequestGate() {
            @Override
            public Duration delay(String method, String path) {
                // A change of the node once its cordon is planned (the cordon, not the fault's own writes) is answered
                // late, as a slow API server would: the cordon stays in progress that long. Below the client's 10 s timeout.
                if (!method.equals("GET") && path.startsWith(heldPath) && cordonPlanned()) {
                    held.incrementAndGet();
                    return HOLD;
                }
                return Duration.ZERO;
            }
        });
        try {
            inject("{\"kind\":\"xid\",\"node\":\"" + HELD + "\",\"gpu\":2,\"xid\":79}");
            Map<String, Object> first = await("the first incident decided", () -> triaged(HELD));
            await("its cordon sent to the API server", () -> held.get() > 0 ? Map.of() : null);
            Instant sent = Instant.now();
            assertEquals("planned", cordonOf(HELD), "its cordon is in progress: " + first);

            inject("{\"kind\":\"node-not-ready\",\"node\":\"" + NEXT + "\"}");
            Map<String, Object> second = await("the second incident decided", () -> triaged(NEXT));
            assertTrue(second.get("family") != null, second.toString());
            assertEquals("planned", cordonOf(HELD), "decided while the first cordon was still held ("
                    + Duration.between(sent, Instant.now()).toMillis() + " ms after it was sent; its answer takes " + HOLD.toMillis() + " ms)");
            await("the cordon finished once answered", () -> "succeeded".equals(cordonOf(HELD)) ? Map.of() : null);
        } finally {
            sandbox.gate(RequestGate.OPEN);
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, HELD);
            FreshFleet.forget(database, NEXT);
        }
    }

    private boolean cordonPlanned() {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from actions where kind = 'cordon-node' and target = ? and status = 'PLANNED'")) {
                ps.setString(1, HELD);
                try (var rs = ps.executeQuery()) {
                    return rs.next() && rs.getLong(1) > 0;
                }
            }
        });
    }

    private static void inject(String fault) {
        given().contentType("application/json").body(fault)
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
