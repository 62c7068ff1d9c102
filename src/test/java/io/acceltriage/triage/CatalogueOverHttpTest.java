package io.acceltriage.triage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NVIDIA's XID catalogue through the running service: an XID the catalogue recovers with a GPU reset gets that
 * reset proposed beside the cordon, and an XID outside the catalogue is escalated with nothing fenced. Faults are
 * injected into the sandbox and arrive through the production webhook; nodes no other test faults.
 */
@QuarkusTest
class CatalogueOverHttpTest {

    static final String RESET_NODE = "gpu-h100-12";
    static final String UNKNOWN_NODE = "gpu-a100-07";

    @jakarta.inject.Inject
    io.acceltriage.store.Database database;

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
        FreshFleet.forget(database, RESET_NODE);
        FreshFleet.forget(database, UNKNOWN_NODE);
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void anNvlinkTrainingFailureGetsTheGpuResetNvidiasCatalogueNames() {
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + RESET_NODE + "\",\"gpu\":5,\"xid\":136}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

        JsonPath incident = TriageFlowTest.awaitTriagedIncident(RESET_NODE);
        assertEquals("device", incident.getString("family"), incident.getString("summary"));
        List<String> proposals = incident.getList("assessment.judgements.collect { it.proposal.kind + ':' + it.proposal.target }");
        assertTrue(proposals.contains("reset-gpu:" + RESET_NODE + "/5"), "proposals: " + proposals);
        assertTrue(proposals.contains("cordon-node:" + RESET_NODE), "proposals: " + proposals);
    }

    @Test
    void anXidOutsideTheCatalogueIsEscalatedAndFencesNothing() {
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + UNKNOWN_NODE + "\",\"gpu\":2,\"xid\":250}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

        JsonPath incident = TriageFlowTest.awaitTriagedIncident(UNKNOWN_NODE);
        assertEquals("device", incident.getString("family"), incident.getString("summary"));
        List<String> kinds = incident.getList("assessment.judgements.proposal.kind");
        assertFalse(kinds.contains("cordon-node") || kinds.contains("drain-node") || kinds.contains("reset-gpu"), "proposals: " + kinds);
        assertFalse(incident.getList("assessment.escalationReasons").isEmpty(), "a person looks the code up");
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == '" + UNKNOWN_NODE + "' }.cordoned", equalTo(false));
    }
}
