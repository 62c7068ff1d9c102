package io.acceltriage.sandbox;

import io.acceltriage.TestAuth;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;


import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class SandboxResourceTest {

    @Inject
    io.acceltriage.store.Database database;

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @BeforeEach
    void reset() {
        TestAuth.asAdmin();
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
    }

    @Test
    void readinessReportsTheSeededSandbox() {
        // other checks of the application may decide the overall status; this one is the sandbox's
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'sandbox' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'sandbox' }.data.state", equalTo("started"));
    }

    @Test
    void listsTheSimulatedNodes() {
        given().get("/api/v1/sandbox/nodes").then().statusCode(200)
                .body("findAll { it.pool == 'h100-train' }", hasSize(12))
                .body("findAll { it.pool == 'a100-serve' }", hasSize(10))
                .body("findAll { it.pool == 'tpu-v5e' }.accelerator", hasItem("tpu-v5-lite-podslice"))
                .body("find { it.name == 'gpu-h100-03' }.count", equalTo(8))
                .body("find { it.name == 'gpu-h100-03' }.cordoned", equalTo(false));
    }

    @Test
    void anXidFaultChangesTheWorldAndIsDeliveredAsAnAlertmanagerWebhook() {
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202)
                .body("alert.labels.alertname", equalTo("GpuXidDeviceFault"))
                .body("alert.labels.xid", equalTo("79"))
                .body("alert.endsAt", equalTo("0001-01-01T00:00:00Z"))
                .body("delivered", equalTo(true));

        given().get("/api/v1/sandbox/nodes").then()
                .body("find { it.name == 'gpu-h100-03' }.allocatable", equalTo(7));
        given().get("/sandbox/exporter/gpu-h100-03/metrics").then().statusCode(200)
                .contentType(startsWith("text/plain"))
                .body(containsString("DCGM_FI_DEV_XID_ERRORS{gpu=\"2\","))
                .body(containsString("# TYPE DCGM_FI_DEV_XID_ERRORS gauge"));
        String page = given().get("/sandbox/exporter/gpu-h100-03/metrics").asString();
        assertTrue(page.lines().anyMatch(l -> l.startsWith("DCGM_FI_DEV_XID_ERRORS{gpu=\"2\"") && l.endsWith(" 79")));

        // Delivered through the production webhook (with the test profile's token) into the durable inbox.
        String fingerprint = given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-09\",\"gpu\":1,\"xid\":48}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true))
                .extract().path("alert.fingerprint");
        long stored = database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from alerts where fingerprint = ? and alertname = 'GpuXidDeviceFault'")) {
                ps.setString(1, fingerprint);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
        assertEquals(1, stored, "the sandbox's alert reached POST /api/v1/alerts and was stored");
    }

    @Inject
    Sandbox sandbox;

    @Test
    void exporterUrlPointsAtThisServiceOnItsActualPort() {
        given().get(sandbox.exporterUrl("tpu-v5e-01")).then().statusCode(200)
                .body(containsString("# TYPE tensorcore_utilization gauge"))
                .body(containsString("namespace=\"ml\""));
    }

    @Test
    void badInputIsA400NamingTheField() {
        given().contentType("application/json").body("{\"kind\":\"melt\",\"node\":\"gpu-h100-03\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(400)
                .body("error", containsString("kind \"melt\" is unknown"));
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":9,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(400)
                .body("error", containsString("gpu must be between 0 and 7"));
        given().contentType("application/json").body("{\"kind\":\"cuda-oom\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(400)
                .body("error", containsString("pod is required"));
        given().contentType("application/json").body("{\"kind\":\"xid\",\"colour\":\"red\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(400)
                .body("error", containsString("field \"colour\" is unknown"));
        given().contentType("application/json").body("not json")
                .post("/api/v1/sandbox/faults").then().statusCode(400);
    }

    @Test
    void exporterAnswers404ForUnknownNodesAnd503WhenDown() {
        given().get("/sandbox/exporter/gpu-nope-01/metrics").then().statusCode(404);
        given().contentType("application/json").body("{\"kind\":\"nvml-mismatch\",\"node\":\"gpu-a100-02\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(202);
        given().get("/sandbox/exporter/gpu-a100-02/metrics").then().statusCode(503);
    }

    @Test
    void resetRestoresTheSeededWorld() {
        given().contentType("application/json").body("{\"kind\":\"device-plugin-crash\",\"node\":\"gpu-a100-09\"}")
                .post("/api/v1/sandbox/faults").then().statusCode(202);
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-a100-09' }.count", equalTo(0));

        given().post("/api/v1/sandbox/reset").then().statusCode(200);

        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == 'gpu-a100-09' }.count", equalTo(8));
    }
}
