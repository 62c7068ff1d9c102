package io.acceltriage.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.sandbox.SimulatedCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The census reads the live cluster: once per object within one decision, afresh for the next. */
class PoolCensusTest {

    static SimulatedCluster world;
    static KubernetesClient counted;
    static final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        world = SimulatedCluster.start();
        counted = new KubernetesClientBuilder().withConfig(world.client().getConfiguration())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", new Interceptor() {
                    @Override
                    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                        reads.computeIfAbsent(request.method() + " " + request.uri().getPath(), k -> new AtomicInteger()).incrementAndGet();
                    }
                })).build();
    }

    @AfterAll
    static void stop() {
        counted.close();
        world.close();
    }

    private static PoolCensus census() {
        return new PoolCensus(counted, List.of("acceltriage.io/pool"), List.of("nvidia.com/gpu", "google.com/tpu"));
    }

    private static int reads(String key) {
        return reads.getOrDefault(key, new AtomicInteger()).get();
    }

    @Test
    void oneDecisionReadsTheNodeListOnceHoweverOftenItAsks() {
        reads.clear();
        ClusterFacts facts = census().forOneDecision();
        PoolState pool = facts.poolOf("gpu-h100-05");
        facts.optedOut(ActionKind.CORDON_NODE.target(), "gpu-h100-05", "acceltriage.io/opt-out");
        facts.labelsOf(ActionKind.CORDON_NODE.target(), "gpu-h100-05");
        facts.poolOf("gpu-h100-05");

        assertEquals("h100-train", pool.pool());
        assertEquals(1, reads("GET /api/v1/nodes"), reads.toString());
        assertEquals(0, reads("GET /api/v1/nodes/gpu-h100-05"), "the node comes from the list: " + reads);
    }

    @Test
    void aNewDecisionSeesANodeCordonedSinceTheLast() {
        ClusterFacts first = census().forOneDecision();
        int before = first.poolOf("gpu-a100-03").cordoned();
        world.client().nodes().withName("gpu-a100-04").edit(n -> {
            n.getSpec().setUnschedulable(true);
            return n;
        });
        try {
            assertEquals(before, first.poolOf("gpu-a100-03").cordoned(), "one decision keeps what it read");
            assertEquals(before + 1, census().forOneDecision().poolOf("gpu-a100-03").cordoned(), "the next decision reads again");
            assertEquals(before + 1, census().poolOf("gpu-a100-03").cordoned(), "the plain census always reads");
        } finally {
            world.client().nodes().withName("gpu-a100-04").edit(n -> {
                n.getSpec().setUnschedulable(false);
                return n;
            });
        }
    }

    @Test
    void aWorkloadNamedByAProposalIsFoundWhateverItsKind() {
        ClusterFacts facts = census().forOneDecision();
        assertTrue(facts.workloadOf(ActionKind.RESTART_GROUP.target(), "ml/llm-pretrain").map(w -> w.gang()).orElse(false),
                "the JobSet is a gang");
        assertEquals("Deployment", facts.workloadOf(ActionKind.SHIFT_REPLICAS.target(), "serve/vllm-llama")
                .map(WorkloadFacts::kind).orElse("none"));
        assertTrue(facts.workloadOf(ActionKind.RESTART_GROUP.target(), "ml/no-such-workload").isEmpty());
    }

    @Test
    void aNodeWhoseLastValidationFailedIsReadWithDcgmsWordsAPassedOneIsNot() {
        String node = "gpu-a100-04";
        world.client().nodes().withName(node).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editMetadata()
                .addToLabels(ClusterFacts.VALIDATION_LABEL, "failed")
                .addToAnnotations(ClusterFacts.VALIDATION_MESSAGE, "memory (Hardware) failed on GPU 3: Found 4 faulty memory elements on GPU 3")
                .endMetadata().build());
        try {
            assertEquals(java.util.Optional.of("memory (Hardware) failed on GPU 3: Found 4 faulty memory elements on GPU 3"),
                    census().forOneDecision().failedValidation(node));
            world.client().nodes().withName(node).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editMetadata()
                    .addToLabels(ClusterFacts.VALIDATION_LABEL, "passed").endMetadata().build());
            assertTrue(census().failedValidation(node).isEmpty(), "a passed validation holds nothing");
            assertTrue(census().failedValidation("gpu-a100-03").isEmpty(), "no validation ran");
        } finally {
            world.client().nodes().withName(node).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editMetadata()
                    .removeFromLabels(ClusterFacts.VALIDATION_LABEL).removeFromAnnotations(ClusterFacts.VALIDATION_MESSAGE).endMetadata().build());
        }
    }

    @Test
    void aReadTheApiServerRefusesSurfacesAsClusterUnreadableWithItsReason() {
        // A port nothing listens on: every read fails the way a down API server fails.
        try (KubernetesClient down = new KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:1").withRequestRetryBackoffLimit(0).withConnectionTimeout(500).build()).build()) {
            ClusterFacts facts = new PoolCensus(down, List.of("acceltriage.io/pool"), List.of("nvidia.com/gpu")).forOneDecision();
            ClusterUnreadable e = org.junit.jupiter.api.Assertions.assertThrows(ClusterUnreadable.class, () -> facts.poolOf("gpu-h100-05"));
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "the reason is kept for the verdict");
        }
    }

    /**
     * The sandbox's a100-serve pool is Cluster API's, its MachineHealthCheck without a remediationTemplate: a node of
     * it is replaced on repair; with a template (an external remediation) nothing says so; a node without a Machine
     * neither.
     */
    @Test
    void aClusterApiNodeIsReplacedOnRepairWhenItsMachineHealthCheckNamesNoRemediationTemplate() {
        Optional<String> replaced = census().machineReplacedOnRepair("gpu-a100-03");
        assertTrue(replaced.isPresent() && replaced.get().contains("names no remediationTemplate"), replaced.toString());
        assertEquals(Optional.empty(), census().machineReplacedOnRepair("gpu-h100-05"), "a Karpenter node has no Machine");
        var checks = world.client().genericKubernetesResources("cluster.x-k8s.io/v1beta1", "MachineHealthCheck").inNamespace("capi-fleet");
        String name = checks.list().getItems().get(0).getMetadata().getName();
        try {
            checks.withName(name).edit(m -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> spec = (Map<String, Object>) m.getAdditionalProperties().get("spec");
                spec.put("remediationTemplate", Map.of("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind", "Metal3RemediationTemplate", "name", "reboot", "namespace", "capi-fleet"));
                return m;
            });
            assertEquals(Optional.empty(), census().machineReplacedOnRepair("gpu-a100-03"), "an external remediation may reboot");
        } finally {
            world.reset();
        }
    }
}
