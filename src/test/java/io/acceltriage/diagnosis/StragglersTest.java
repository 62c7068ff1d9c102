package io.acceltriage.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import io.acceltriage.evidence.EvidenceBundle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fail-slow (knowledge/stragglers.yaml): a rank or replica on the node markedly slower than its peers
 * on other nodes names the node's GPU; alone (the tenant's series) it is a degradation that escalates,
 * with a platform device reading of the same GPU it is cited as the device slowing the workload.
 */
class StragglersTest {

    static final String NODE = "gpu-h100-05";
    static final String RANK = "llama-pretrain-worker-5";

    /** Rank 5 on the node at {@code throughput} samples/s, its gang's three other ranks at 100, 96 and 104 on other nodes. */
    static Bundles gangWithRankAt(double throughput) {
        return Bundles.node(NODE).pool("h100-train").gang("JobSet", "ml", "llama-pretrain", RANK).alsoOn("gpu-h100-06", "gpu-h100-07", "gpu-h100-09")
                .holds(3, "ml", RANK).dcgm("DCGM_FI_DEV_GPU_UTIL", 3, 99)
                .tenantReading(NODE, "ml", RANK, "training_samples_per_second", throughput)
                .tenantReading("gpu-h100-06", "ml", "llama-pretrain-worker-6", "training_samples_per_second", 100)
                .tenantReading("gpu-h100-07", "ml", "llama-pretrain-worker-7", "training_samples_per_second", 96)
                .tenantReading("gpu-h100-09", "ml", "llama-pretrain-worker-9", "training_samples_per_second", 104);
    }

    static Finding straggler(Diagnosis d) {
        return d.findings().stream().filter(f -> Stragglers.GROUP.equals(f.group())).findFirst()
                .orElseThrow(() -> new AssertionError("no straggler finding: " + d.findings()));
    }

    @Test
    void aRankAtHalfItsPeersThroughputNamesItsNodesGpuAndEscalatesOnTheTenantsWordAlone() {
        EvidenceBundle b = gangWithRankAt(50).build();
        Diagnosis d = ClassifierTest.RULES.classify(b);

        Finding f = straggler(d);
        assertEquals(Family.DEVICE, d.family(), d.toString());
        assertTrue(f.cause().startsWith("fail-slow: ml/" + RANK + " on GPU 3 of " + NODE + " is 2.0× slower than the median of its 3 peers"
                + " on other nodes (training_samples_per_second 50 against 100)"), f.cause());
        assertTrue(f.cause().contains("reported by the workload only"), f.cause());
        assertEquals(0.4, f.weight());
        assertTrue(d.degradation(), "slow, not broken");
        assertTrue(d.confidence() < ClassifierTest.minConfidence("cordon-node"), "the tenant's series alone never fence: " + d.confidence());
        assertEquals(4, f.evidenceIds().size(), "the slow rank and its three peers are cited: " + f.evidenceIds());
    }

    @Test
    void theGpusOwnHardwareSlowdownOnTheSameGpuSupportsADeviceFinding() {
        // DCGM clock event reasons 0x8: hardware slowdown, on the GPU rank 5 holds.
        EvidenceBundle b = gangWithRankAt(50).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 3, 8).build();
        Diagnosis d = ClassifierTest.RULES.classify(b);

        Finding f = straggler(d);
        assertEquals(0.7, f.weight());
        assertTrue(f.cause().contains("the GPU's exporter shows hardware slowdown"), f.cause());
        assertTrue(f.evidenceIds().contains(b.items().get(b.items().size() - 1).id()), "the platform reading is cited: " + f.evidenceIds());
        assertEquals(Family.DEVICE, d.family());
        assertTrue(d.evidenceIds().containsAll(f.evidenceIds()));
    }

    @Test
    void aSlowdownOnAnotherGpuOfTheNodeDoesNotCorroborateIt() {
        Diagnosis d = ClassifierTest.RULES.classify(gangWithRankAt(50).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 6, 8).build());
        assertEquals(0.4, straggler(d).weight(), straggler(d).cause());
    }

    @Test
    void aRankWithinTheRatioOfItsPeersIsNoStraggler() {
        Diagnosis d = ClassifierTest.RULES.classify(gangWithRankAt(70).build());
        assertTrue(d.findings().stream().noneMatch(f -> Stragglers.GROUP.equals(f.group())), d.findings().toString());
        assertEquals(Family.NONE, d.family());
    }

    @Test
    void tooFewPeersMakeNoMedian() {
        EvidenceBundle b = Bundles.node(NODE).gang("JobSet", "ml", "llama-pretrain", RANK).alsoOn("gpu-h100-06", "gpu-h100-07")
                .tenantReading(NODE, "ml", RANK, "training_samples_per_second", 10)
                .tenantReading("gpu-h100-06", "ml", "llama-pretrain-worker-6", "training_samples_per_second", 100)
                .tenantReading("gpu-h100-07", "ml", "llama-pretrain-worker-7", "training_samples_per_second", 100).build();
        assertTrue(ClassifierTest.RULES.classify(b).findings().stream().noneMatch(f -> Stragglers.GROUP.equals(f.group())));
    }

    @Test
    void aServingReplicaWithAQueueFarAboveItsPeersIsAStragglerButAShortQueueIsNoise() {
        Bundles serving = Bundles.node("gpu-a100-04").serving("Deployment", "serve", "vllm-llama", 3, 3, "vllm-llama-b").alsoOn("gpu-a100-03", "gpu-a100-05")
                .tenantReading("gpu-a100-03", "serve", "vllm-llama-a", "vllm:num_requests_waiting", 1)
                .tenantReading("gpu-a100-05", "serve", "vllm-llama-c", "vllm:num_requests_waiting", 2);
        Diagnosis slow = ClassifierTest.RULES.classify(serving.tenantReading("gpu-a100-04", "serve", "vllm-llama-b", "vllm:num_requests_waiting", 40).build());
        assertTrue(straggler(slow).cause().contains("a GPU of gpu-a100-04"), "no exporter reading names the replica's GPU: " + straggler(slow).cause());
        Bundles quiet = Bundles.node("gpu-a100-04").serving("Deployment", "serve", "vllm-llama", 3, 3, "vllm-llama-b").alsoOn("gpu-a100-03", "gpu-a100-05")
                .tenantReading("gpu-a100-03", "serve", "vllm-llama-a", "vllm:num_requests_waiting", 0)
                .tenantReading("gpu-a100-05", "serve", "vllm-llama-c", "vllm:num_requests_waiting", 1)
                .tenantReading("gpu-a100-04", "serve", "vllm-llama-b", "vllm:num_requests_waiting", 3);
        assertTrue(ClassifierTest.RULES.classify(quiet.build()).findings().stream().noneMatch(f -> Stragglers.GROUP.equals(f.group())));
    }

    @Test
    void aKnowledgeFileThatCannotTellSlowFromFastStopsTheStartNamingIt() {
        String yaml = """
                weight: 0.4
                corroboratedWeight: 0.7
                readings:
                  - {metric: training_samples_per_second, slower: smaller, ratio: 1.5, minPeers: 3}
                """;
        DataFiles.InvalidDataFile e = assertThrows(DataFiles.InvalidDataFile.class, () -> Stragglers.validated("knowledge/stragglers.yaml",
                DataFiles.parse("knowledge/stragglers.yaml", yaml.getBytes(StandardCharsets.UTF_8), Stragglers.class)));
        assertEquals("knowledge/stragglers.yaml: training_samples_per_second: slower must be higher or lower, got 'smaller'", e.getMessage());
        assertTrue(List.of(Stragglers.load().readings().get(0).metric()).contains("training_step_duration_seconds"));
    }
}
