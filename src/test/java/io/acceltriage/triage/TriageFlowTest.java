package io.acceltriage.triage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The walking skeleton end to end over real HTTP: a fault injected into the sandbox reaches the
 * webhook as Alertmanager would send it, becomes an incident, is classified from the evidence, the
 * policy allows the cordon, the executor cordons the node in the (simulated) API server, and every
 * step is in the audit log.
 */
@QuarkusTest
class TriageFlowTest {

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    static JsonPath awaitTriagedIncident(String node) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            JsonPath list = given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            List<String> states = list.getList("items.state");
            if (!states.isEmpty() && !"triaging".equals(states.get(0))) {
                String id = list.getString("items[0].id");
                return given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
            }
            sleep(200);
        }
        throw new AssertionError("no triaged incident for " + node + " within 30 s");
    }

    @Test
    void anXid79OnASandboxNodeCordonsItAndAuditsEveryStep() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-07\",\"gpu\":3,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

        JsonPath incident = awaitTriagedIncident("gpu-h100-07");
        String id = incident.getString("id");
        assertTrue(incident.getString("family").equals("device"), "family: " + incident.getString("family"));
        List<String> proposals = incident.getList("assessment.judgements.collect { it.proposal.kind + ':' + it.proposal.target }");
        assertTrue(proposals.contains("cordon-node:gpu-h100-07"), "proposals: " + proposals);
        List<String> cited = incident.getList("assessment.diagnosis.evidenceIds");
        List<String> known = incident.getList("assessment.evidence.items.id");
        assertTrue(!cited.isEmpty() && known.containsAll(cited), "diagnosis cites " + cited);
        assertTrue(incident.getString("summary").contains("XID 79"), incident.getString("summary"));

        given().get("/api/v1/incidents/" + id).then()
                .body("actions.findAll { it.kind == 'cordon-node' }.status", hasItem("SUCCEEDED"))
                .body("timeline.kind", hasItems("incident.opened", "alert.filed", "evidence.collected", "diagnosis",
                        "proposal", "verdict", "action.started", "action.finished", "escalation", "notification"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-h100-07' }.cordoned", equalTo(true));
        given().get("/api/v1/audit/verify").then().statusCode(200).body("intact", equalTo(true));
        given().get("/").then().statusCode(200).body(containsString("node:gpu-h100-07"));
        given().get("/incidents/" + id).then().statusCode(200).body(containsString("cordon-node"));
    }

    @Test
    void aCudaOomInANotebookIsTheApplicationsAndNeverTouchesTheNode() {
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        given().contentType("application/json").body("{\"kind\":\"cuda-oom\",\"pod\":\"research/jupyter-alice-0\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

        JsonPath incident = awaitTriagedIncident("gpu-a100-06");
        assertTrue(incident.getString("subject").equals("pod:research/jupyter-alice-0"), incident.getString("subject"));
        assertTrue(incident.getString("family").equals("application"), "family: " + incident.getString("family"));
        List<String> kinds = incident.getList("assessment.judgements.proposal.kind");
        assertTrue(!kinds.contains("cordon-node") && !kinds.contains("drain-node"), "proposals: " + kinds);
        assertTrue(incident.getString("state").equals("escalated"), "an out-of-memory workload needs its owners");
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-a100-06' }.cordoned", equalTo(false));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
