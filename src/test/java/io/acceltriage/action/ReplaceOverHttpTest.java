package io.acceltriage.action;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.AwaitedActions;
import io.acceltriage.testing.FreshFleet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The way back to service for a pool whose repairer cannot reboot, through the running service's HTTP API:
 * the shared test policy sends pool {@code h100-spot} to Karpenter ({@code repair.pools}); this test labels two
 * h100 nodes of the sandbox (each has a Karpenter NodeClaim) into that pool and injects XID 79 (only a reboot
 * clears it) on one. The incident proposes replace-node, not reboot-node; approved, the node's NodeClaim is
 * deleted, the sandbox's Karpenter drains and ends it and a new node joins the pool; validate-node (its DCGM
 * diagnostic Job) and return-node, proposed for the old node, act on the replacement, which ends in service.
 * Likewise pool {@code a100-capi} goes to Cluster API. Each test labels its nodes and puts the sandbox back after.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class ReplaceOverHttpTest {

    static final String NODE = "gpu-h100-11";
    static final String PEER = "gpu-h100-12";
    static final String POOL = "h100-spot";

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Inject
    KubernetesClient client;

    @Test
    void xid79InAKarpenterPoolIsAnsweredByAReplacementThatIsValidatedAndReturnedInTheOldNodesPlace() {
        FreshFleet.prepare(database, breaker);
        String replacement = null;
        try {
            for (String n : List.of(NODE, PEER)) client.nodes().withName(n).edit(x -> {
                x.getMetadata().getLabels().put("acceltriage.io/pool", POOL);
                return x;
            });
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + NODE + "\",\"gpu\":0,\"xid\":79}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> replace = AwaitedActions.await("replace-node", NODE, "awaiting_approval");
            Map<String, Object> validate = AwaitedActions.await("validate-node", NODE, "awaiting_approval");
            Map<String, Object> back = AwaitedActions.await("return-node", NODE, "awaiting_approval");
            List<Map<String, Object>> all = given().get("/api/v1/actions").jsonPath().getList("items");
            assertTrue(all.stream().noneMatch(a -> "reboot-node".equals(a.get("kind")) && NODE.equals(a.get("target"))),
                    "Karpenter never reboots: no reboot-node is proposed: " + all);
            String incident = given().get("/api/v1/incidents/" + replace.get("incident")).then().statusCode(200).extract().asString();
            assertTrue(incident.contains("to its pool's repairer (karpenter) to replace it, as karpenter never reboots a node"), incident);

            assertEquals("planned", approve(validate).getString("status"), "kept until the replacement is in");
            JsonPath replaced = approve(replace);
            assertEquals("succeeded", replaced.getString("status"), replaced.getString("message"));

            await(() -> node(NODE).isEmpty(), "the old node is ended by Karpenter");
            Map<String, Object> fresh = inPool().stream().filter(n -> !PEER.equals(n.get("name"))).findFirst().orElseThrow();
            replacement = String.valueOf(fresh.get("name"));
            assertEquals(NODE, client.nodes().withName(replacement).get().getMetadata().getAnnotations().get("acceltriage.io/replaces"),
                    "the replacement names the node it stands for");
            assertEquals(Boolean.TRUE, fresh.get("cordoned"), "a replacement stays fenced until validated and returned");

            await(() -> "succeeded".equals(status(validate)), "the validation ran on the replacement: " + status(validate));
            String validated = given().get("/api/v1/actions/" + validate.get("id")).jsonPath().getString("detail");
            assertTrue(validated.contains(replacement) && validated.contains("dcgmi diag -r 2: Pass"), validated);
            await(() -> String.valueOf(given().get("/api/v1/actions/" + back.get("id")).jsonPath().getString("detail"))
                    .contains("ready for approval"), "return-node is proposed once the replacement's validation passed");

            JsonPath returned = approve(back);
            assertEquals("succeeded", returned.getString("status"), returned.getString("message"));
            String name = replacement;
            assertEquals(Boolean.FALSE, node(name).orElseThrow().get("cordoned"), "the replacement serves in the old node's place");
            assertEquals(List.of(PEER, replacement).stream().sorted().toList(),
                    inPool().stream().map(n -> String.valueOf(n.get("name"))).sorted().toList(), "the pool is whole again");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, NODE);
            if (replacement != null) FreshFleet.forget(database, replacement);
        }
    }

    static final String CAPI_POOL = "a100-capi";
    static final String CAPI_NODE = "gpu-a100-09";
    static final String CAPI_PEER = "gpu-a100-10";

    /**
     * The same XID in a pool Cluster API repairs whose MachineHealthCheck has an external remediation (Metal3's
     * reboots): reboot-node is proposed, the Machine is annotated for its health check, the sandbox's remediation
     * reboots the node (a new boot id), and the same node is validated and returned.
     */
    @Test
    void xid79InAClusterApiPoolIsRebootedThroughItsMachineValidatedAndReturned() {
        FreshFleet.prepare(database, breaker);
        try {
            for (String n : List.of(CAPI_NODE, CAPI_PEER)) client.nodes().withName(n).edit(x -> {
                x.getMetadata().getLabels().put("acceltriage.io/pool", CAPI_POOL);
                return x;
            });
            client.genericKubernetesResources("cluster.x-k8s.io/v1beta1", "MachineHealthCheck").inNamespace("capi-fleet")
                    .withName("a100-serve-unhealthy").edit(m -> {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> spec = (Map<String, Object>) m.getAdditionalProperties().get("spec");
                        spec.put("remediationTemplate", Map.of("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                                "kind", "Metal3RemediationTemplate", "name", "reboot", "namespace", "capi-fleet"));
                        return m;
                    });
            String boot = bootId(CAPI_NODE);
            String machine = client.nodes().withName(CAPI_NODE).get().getMetadata().getAnnotations().get("cluster.x-k8s.io/machine");
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + CAPI_NODE + "\",\"gpu\":1,\"xid\":79}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> reboot = AwaitedActions.await("reboot-node", CAPI_NODE, "awaiting_approval");
            Map<String, Object> validate = AwaitedActions.await("validate-node", CAPI_NODE, "awaiting_approval");
            Map<String, Object> back = AwaitedActions.await("return-node", CAPI_NODE, "awaiting_approval");
            List<Map<String, Object>> all = given().get("/api/v1/actions").jsonPath().getList("items");
            assertTrue(all.stream().noneMatch(a -> "replace-node".equals(a.get("kind")) && CAPI_NODE.equals(a.get("target"))),
                    "a reboot clears XID 79 and Cluster API can reboot: nothing is replaced: " + all);

            assertEquals("planned", approve(validate).getString("status"));
            JsonPath rebooted = approve(reboot);
            assertEquals("succeeded", rebooted.getString("status"), rebooted.getString("message"));
            await(() -> !boot.equals(bootId(CAPI_NODE)), "the Machine's external remediation reboots the node (a new boot id)");
            await(() -> !client.genericKubernetesResources("cluster.x-k8s.io/v1beta1", "Machine").inNamespace("capi-fleet").withName(machine)
                    .get().getMetadata().getAnnotations().containsKey("cluster.x-k8s.io/remediate-machine"), "the remediation request is done");

            await(() -> "succeeded".equals(status(validate)), "the validation ran after the reboot: " + status(validate));
            await(() -> String.valueOf(given().get("/api/v1/actions/" + back.get("id")).jsonPath().getString("detail"))
                    .contains("ready for approval"), "return-node is proposed once the validation passed");
            JsonPath returned = approve(back);
            assertEquals("succeeded", returned.getString("status"), returned.getString("message"));
            assertEquals(Boolean.FALSE, node(CAPI_NODE).orElseThrow().get("cordoned"), "the same node is back in service");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, CAPI_NODE);
        }
    }

    /**
     * The same XID in the Cluster API pool as the sandbox seeds it: its MachineHealthCheck names no remediationTemplate,
     * so Cluster API would delete the Machine rather than reboot it; the planner reads that and proposes replace-node.
     */
    @Test
    void xid79InAClusterApiPoolWhoseHealthCheckHasNoRemediationTemplateIsProposedForReplacement() {
        FreshFleet.prepare(database, breaker);
        try {
            for (String n : List.of(CAPI_NODE, CAPI_PEER)) client.nodes().withName(n).edit(x -> {
                x.getMetadata().getLabels().put("acceltriage.io/pool", CAPI_POOL);
                return x;
            });
            // GPU 5: the reboot test of this class faults GPU 1, and a GPU that faults again after its repair is escalated instead
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + CAPI_NODE + "\",\"gpu\":5,\"xid\":79}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
            Map<String, Object> replace = AwaitedActions.await("replace-node", CAPI_NODE, "awaiting_approval");
            String incident = given().get("/api/v1/incidents/" + replace.get("incident")).then().statusCode(200).extract().asString();
            assertTrue(incident.contains("to its pool's repairer (clusterapi) to replace it, as its MachineHealthCheck capi-fleet/")
                    && incident.contains("names no remediationTemplate"), incident);
            List<Map<String, Object>> all = given().get("/api/v1/actions").jsonPath().getList("items");
            assertTrue(all.stream().noneMatch(a -> "reboot-node".equals(a.get("kind")) && CAPI_NODE.equals(a.get("target"))),
                    "no reboot that would wait for a node Cluster API deletes: " + all);
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, CAPI_NODE);
        }
    }

    @Inject
    io.acceltriage.history.FaultHistory history;

    /**
     * A node whose GPU has had five fatal XIDs today is a repeat offender: the XID 79 that would send it for a
     * reboot gets replace-node proposed instead (its pool's handshake repairer can replace), for a person; the
     * replacement that joins is validated and returned, since the old node's history is not the new hardware's.
     */
    @Test
    void aRepeatOffenderNeedingARebootIsProposedForReplacementInstead() {
        FreshFleet.prepare(database, breaker);
        String node = CAPI_PEER;
        FreshFleet.forget(database, node);
        String replacement = null;
        try {
            Instant start = Instant.now();
            for (int i = 1; i <= 5; i++) {
                String earlier = "inc-offender-" + i;
                Instant at = start.minus(Duration.ofHours(6 - i));
                database.transaction(tx -> {
                    history.record(tx, List.of(new io.acceltriage.history.GpuFault(node, "2", null, 79, true, "-", "exporter", earlier, at)));
                    return null;
                });
            }
            given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":2,\"xid\":79}")
                    .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));

            Map<String, Object> replace = AwaitedActions.await("replace-node", node, "awaiting_approval");
            String incident = given().get("/api/v1/incidents/" + replace.get("incident")).then().statusCode(200).extract().asString();
            assertTrue(incident.contains("to its pool's repairer (handshake) to replace it, as repeat offender: GPU " + node + "/2 has had"),
                    incident);
            List<Map<String, Object>> all = given().get("/api/v1/actions").jsonPath().getList("items");
            assertTrue(all.stream().noneMatch(a -> "reboot-node".equals(a.get("kind")) && node.equals(a.get("target"))),
                    "no reboot for hardware that must go: " + all);

            // The replacement is new hardware: the old node's history does not keep it out of service.
            Map<String, Object> validate = AwaitedActions.await("validate-node", node, "awaiting_approval");
            Map<String, Object> back = AwaitedActions.await("return-node", node, "awaiting_approval");
            assertEquals("planned", approve(validate).getString("status"));
            JsonPath replaced = approve(replace);
            assertEquals("succeeded", replaced.getString("status"), replaced.getString("message"));
            String fresh = client.nodes().list().getItems().stream()
                    .filter(n -> node.equals(n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get("acceltriage.io/replaces")))
                    .map(n -> n.getMetadata().getName()).findFirst().orElseThrow(() -> new AssertionError("no node replaces " + node));
            replacement = fresh;
            await(() -> "succeeded".equals(status(validate)), "the validation ran on the replacement: " + status(validate));
            await(() -> String.valueOf(given().get("/api/v1/actions/" + back.get("id")).jsonPath().getString("detail"))
                    .contains("ready for approval"), "return-node is proposed once the replacement's validation passed");
            JsonPath returned = approve(back);
            assertEquals("succeeded", returned.getString("status"), returned.getString("message"));
            assertEquals(Boolean.FALSE, node(fresh).orElseThrow().get("cordoned"), "the offender's replacement serves in its place");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            FreshFleet.forget(database, node);
            if (replacement != null) FreshFleet.forget(database, replacement);
        }
    }

    private String bootId(String node) {
        return client.nodes().withName(node).get().getStatus().getNodeInfo().getBootID();
    }

    private JsonPath approve(Map<String, Object> action) {
        return given().contentType("application/json").body(Map.of("approver", "test-approver", "reason", "XID 79: replace the host"))
                .post("/api/v1/actions/" + action.get("id") + "/approve").then().statusCode(200).extract().jsonPath();
    }

    private static String status(Map<String, Object> action) {
        return given().get("/api/v1/actions/" + action.get("id")).then().statusCode(200).extract().jsonPath().getString("status");
    }

    private static List<Map<String, Object>> nodes() {
        return given().get("/api/v1/sandbox/nodes").jsonPath().getList("");
    }

    private static Optional<Map<String, Object>> node(String name) {
        return nodes().stream().filter(n -> name.equals(n.get("name"))).findFirst();
    }

    private static List<Map<String, Object>> inPool() {
        return nodes().stream().filter(n -> POOL.equals(n.get("pool"))).toList();
    }

    private static void await(BooleanSupplier done, String what) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (!done.getAsBoolean()) {
            assertFalse(Instant.now().isAfter(deadline), what);
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
