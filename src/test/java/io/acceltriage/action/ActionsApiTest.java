package io.acceltriage.action;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
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
 * The actions API over real HTTP, and the safety drill: faults on every node of one pool end
 * with at most the pool's cap cordoned, the breaker tripped, one escalation saying why, and nothing
 * acting on the pool's last healthy nodes.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class ActionsApiTest {

    @Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @Inject
    io.acceltriage.store.Database freshDatabase;


    @Inject
    Executor executor;

    @Inject
    io.acceltriage.store.Database database;

    private ActionRecord awaiting(String incident, String node) {
        return executor.carryOut(incident, new Proposal(ActionKind.CORDON_NODE, node, "test", List.of(), "test"),
                new Verdict(Decision.APPROVE, "actions.cordon-node.decision", List.of("a person approves"), false));
    }

    private static io.restassured.response.Response decide(String id, String verb, String approver) {
        return given().contentType("application/json").body(Map.of("approver", approver, "reason", "checked the node"))
                .post("/api/v1/actions/" + id + "/" + verb);
    }

    @Test
    void anApproverApprovesAWaitingActionWhichThenRunsAndCanBeUndone() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        ActionRecord r = awaiting("inc-approve-1", "gpu-h100-11");
        assertEquals(ActionStatus.AWAITING_APPROVAL, r.status());
        given().queryParam("status", "awaiting_approval").get("/api/v1/actions").then().statusCode(200)
                .body("items.id", hasItem(r.id()));

        // Nobody decides in someone else's name: the approver is whoever is signed in.
        decide(r.id(), "approve", "mallory").then().statusCode(403).body("error", containsString("may not decide as mallory"));
        // An admin of the service is still not an approver of the policy.
        given().spec(io.acceltriage.TestAuth.bearer(io.acceltriage.TestAuth.ADMIN)).contentType("application/json").body("{}")
                .post("/api/v1/actions/" + r.id() + "/approve").then().statusCode(403)
                .body("error", startsWith("sorry, test-admin is not among the approvers of policy test-default"));
        given().queryParam("kind", "access.denied").get("/api/v1/audit").then().body("items.actor", hasItem("test-admin"));

        decide(r.id(), "approve", "test-approver").then().statusCode(200).body("status", equalTo("succeeded"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-11' }.cordoned", equalTo(true));
        decide(r.id(), "approve", "test-approver").then().statusCode(409);

        given().contentType("application/json").body(Map.of("approver", "test-approver")).post("/api/v1/actions/" + r.id() + "/undo")
                .then().statusCode(200).body("status", equalTo("undone"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-11' }.cordoned", equalTo(false));
    }

    @Test
    void aRejectedActionNeverRunsAndBadRequestsGetClearAnswers() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        ActionRecord r = awaiting("inc-reject-1", "gpu-h100-12");
        decide(r.id(), "reject", "test-approver").then().statusCode(200).body("status", equalTo("rejected"));
        decide(r.id(), "approve", "test-approver").then().statusCode(409).body("error", startsWith("action " + r.id()
                + " is not waiting for approval: it is rejected"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-12' }.cordoned", equalTo(false));

        decide("act-nope", "approve", "test-approver").then().statusCode(404);
        given().contentType("application/json").body("{not json").post("/api/v1/actions/" + r.id() + "/approve").then().statusCode(400);
        given().queryParam("status", "bogus").get("/api/v1/actions").then().statusCode(400);
        given().queryParam("kind", "approval").get("/api/v1/audit").then().body("items.actor", hasItem("test-approver"));
    }

    @Test
    void faultsOnEveryNodeOfAPoolCordonNoMoreThanTheCapAndTripTheBreakerOnce() {
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        List<String> pool = List.of("gpu-a100-01", "gpu-a100-02", "gpu-a100-03", "gpu-a100-04", "gpu-a100-05", "gpu-a100-06",
                "gpu-a100-07", "gpu-a100-08", "gpu-a100-09", "gpu-a100-10");
        int trippedBefore = given().queryParam("kind", "breaker.tripped").get("/api/v1/audit").jsonPath().getList("items").size();
        try {
            for (String node : pool) {
                given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":0,\"xid\":79}")
                        .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
            }
            Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
            for (String node : pool) {
                while (true) {
                    JsonPath list = given().queryParam("node", node).get("/api/v1/incidents").jsonPath();
                    List<String> states = list.getList("items.state");
                    if (!states.isEmpty() && !"triaging".equals(states.get(0)) && !"open".equals(states.get(0))) break;
                    assertTrue(Instant.now().isBefore(deadline), "no triaged incident for " + node);
                    sleep(250);
                }
            }
            List<Map<String, Object>> nodes = given().get("/api/v1/sandbox/nodes").jsonPath().getList("findAll { it.pool == 'a100-serve' }");
            long cordoned = nodes.stream().filter(n -> Boolean.TRUE.equals(n.get("cordoned"))).count();
            assertTrue(cordoned <= 1, "the cap of 10 % of 10 nodes is one node; cordoned: " + cordoned);
            assertTrue(nodes.stream().filter(n -> !Boolean.TRUE.equals(n.get("cordoned"))).count() >= 9,
                    "the pool keeps its healthy nodes in service");

            given().get("/api/v1/breaker").then().statusCode(200).body("tripped", equalTo(true))
                    .body("reason", startsWith("pool a100-serve wanted more nodes fenced than its cap of 1"));
            List<Map<String, Object>> trips = given().queryParam("kind", "breaker.tripped").get("/api/v1/audit").jsonPath().getList("items");
            assertEquals(trippedBefore + 1, trips.size(), "the breaker trips once");
            List<String> why = given().queryParam("kind", "escalation").queryParam("q", "circuit breaker tripped: pool a100-serve")
                    .get("/api/v1/audit").jsonPath().getList("items.payload.reasons.flatten()");
            assertTrue(why.stream().anyMatch(s -> s.contains("a fleet-wide cause is likelier")), "one escalation says why: " + why);
        } finally {
            given().contentType("application/json").body(Map.of("approver", "test-approver", "reason", "drill over"))
                    .post("/api/v1/breaker/reset").then().statusCode(200);
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            forgetIncidentsOn(pool);
        }
        given().get("/api/v1/breaker").then().body("tripped", equalTo(false));
    }

    /**
     * Every @QuarkusTest of a run shares one database, and other tests look incidents up by node: the
     * drill's ten open incidents on the pool would answer for them. The audit chain keeps the drill.
     */
    private void forgetIncidentsOn(List<String> nodes) {
        nodes.forEach(n -> FreshFleet.forget(database, n));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
