package io.acceltriage.sandbox;

import io.acceltriage.TestAuth;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@TestProfile(SandboxOffTest.RealClusterMode.class)
class SandboxOffTest {

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    public static class RealClusterMode implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("acceltriage.cluster.mode", "kubeconfig");
        }
    }

    @Test
    void everySandboxEndpointAnswers404NamingTheMode() {
        String error = "the sandbox is off: ACCELTRIAGE_CLUSTER_MODE=kubeconfig";
        given().get("/api/v1/sandbox/nodes").then().statusCode(404).body("error", equalTo(error));
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-01\",\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(404).body("error", equalTo(error));
        given().post("/api/v1/sandbox/reset").then().statusCode(404).body("error", equalTo(error));
        given().get("/sandbox/exporter/gpu-h100-01/metrics").then().statusCode(404).body("error", equalTo(error));
    }
}
