package io.acceltriage.action;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.sandbox.Sandbox;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Node-agent rollouts validated by canary through the running service: the test policy watches the exporter
 * ({@code rollouts.canary: {agents: [exporter], nodes: 2, level: 1}}). A dcgm-exporter rollout injected in the
 * sandbox is held at OnDelete, its two canary nodes run the DCGM diagnostic, which passes, and the rollout is
 * released and rolls on; a broken revision after it is held at its canaries, the failure escalated in DCGM's words.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class CanaryRolloutOverHttpTest {

    static final String EXPORTER = "nvidia-dcgm-exporter";

    @Inject
    Sandbox sandbox;

    @Test
    void aRolloutIsHeldForItsCanariesReleasedWhenTheyPassAndABrokenOneStaysHeldAndEscalated() {
        try {
            given().contentType("application/json").body(Map.of("daemonSet", EXPORTER, "image", "nvcr.io/nvidia/k8s/dcgm-exporter:nope",
                    "extra", 1)).post("/api/v1/sandbox/rollouts").then().statusCode(400);
            String good = given().contentType("application/json").body(Map.of("daemonSet", EXPORTER,
                    "image", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.4-ubuntu22.04", "broken", false))
                    .post("/api/v1/sandbox/rollouts").then().statusCode(202).body("revision", equalTo(2)).extract().path("hash");

            await(() -> good.equals(annotation(CanaryRollouts.PASSED)), "the good revision's canary passed");
            assertEquals("RollingUpdate", exporter().getSpec().getUpdateStrategy().getType(), "released");
            assertEquals(List.of("rollout.held"), kinds("rollout.held", good));
            List<Map<String, Object>> canaries = records("rollout.canary", good);
            assertEquals(2, canaries.size(), canaries.toString());
            for (Map<String, Object> c : canaries) {
                Map<?, ?> p = (Map<?, ?>) c.get("payload");
                assertEquals(Boolean.TRUE, p.get("passed"), p.toString());
                assertTrue(String.valueOf(p.get("detail")).startsWith("dcgmi diag -r 1: Pass"), p.toString());
            }
            assertEquals(List.of("rollout.released"), kinds("rollout.released", good));
            await(() -> onRevision(good) > 3, "the released rollout goes past its canaries");
            await(() -> onRevision(good) == pods(), "the released rollout reaches every node");

            String bad = given().contentType("application/json").body(Map.of("daemonSet", EXPORTER,
                    "image", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.4-4.1.5-ubuntu22.04", "broken", true))
                    .post("/api/v1/sandbox/rollouts").then().statusCode(202).body("revision", equalTo(3)).extract().path("hash");

            await(() -> bad.equals(annotation(CanaryRollouts.FAILED)), "the broken revision's canary failed");
            assertEquals("OnDelete", exporter().getSpec().getUpdateStrategy().getType(), "held");
            int reached = onRevision(bad);
            assertTrue(reached >= 2 && reached <= 3, "the canaries and at most the node the rolling update reached first: " + reached);
            List<Map<String, Object>> escalations = given().queryParam("kind", "escalation").queryParam("q", EXPORTER).queryParam("limit", 1000)
                    .get("/api/v1/audit").then().statusCode(200).extract().jsonPath().getList("items");
            String reasons = escalations.stream().map(r -> String.valueOf(((Map<?, ?>) r.get("payload")).get("reasons")))
                    .filter(r -> r.contains(bad) || r.contains("stays held")).findFirst().orElse("");
            assertTrue(reasons.contains("software (Deployment) failed on GPU 0, GPU 1, GPU 2, GPU 3, GPU 4, GPU 5, GPU 6, GPU 7: Error calling NVML API nvmlInit: Driver/library version mismatch"),
                    escalations.toString());
            sleep(3000);
            assertEquals(reached, onRevision(bad), "nothing more rolls while held");
            given().get("/api/v1/audit/verify").then().statusCode(200).body("intact", equalTo(true));
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
        }
    }

    private DaemonSet exporter() {
        return sandbox.client().apps().daemonSets().inNamespace("gpu-operator").withName(EXPORTER).get();
    }

    private String annotation(String key) {
        Map<String, String> a = exporter().getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    private int pods() {
        return sandbox.client().pods().inNamespace("gpu-operator").withLabel("app", EXPORTER).list().getItems().size();
    }

    private int onRevision(String hash) {
        return sandbox.client().pods().inNamespace("gpu-operator").withLabel("app", EXPORTER).withLabel("controller-revision-hash", hash)
                .list().getItems().size();
    }

    private static List<Map<String, Object>> records(String kind, String revision) {
        List<Map<String, Object>> items = given().queryParam("kind", kind).queryParam("limit", 1000).get("/api/v1/audit").then().statusCode(200)
                .extract().jsonPath().getList("items");
        return items.stream().filter(r -> r.get("payload") instanceof Map<?, ?> p && revision.equals(p.get("revision"))).toList();
    }

    private static List<String> kinds(String kind, String revision) {
        return records(kind, revision).stream().map(r -> String.valueOf(r.get("kind"))).toList();
    }

    private static void await(BooleanSupplier done, String what) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!done.getAsBoolean()) {
            assertFalse(Instant.now().isAfter(deadline), what);
            sleep(250);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
