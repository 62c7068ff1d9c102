package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * A GPU the driver never enumerated after a reboot is missing from capacity, allocatable and the node's own count label
 * alike: only the node's pool peers of the same product show how many it should have.
 */
class PoolCountTest {

    static Node node(String name, String pool, String product, int gpus) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels("acceltriage.io/pool", pool)
                .addToLabels("nvidia.com/gpu.product", product).addToLabels("nvidia.com/gpu.count", String.valueOf(gpus)).endMetadata()
                .withNewSpec().endSpec().withNewStatus().addToCapacity("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
                .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(gpus))).endStatus().build();
    }

    static ClusterCollector over(List<Node> nodes) {
        return FixedClusters.over(nodes, List.of());
    }

    @Test
    void aNodeShortOfTheGpusItsSameProductPoolPeersAdvertiseExpectsThePoolsCount() {
        Node tray = node("gb200-train-21", "train-gb200", "NVIDIA-GB200", 3);
        ClusterCollector c = over(List.of(tray, node("gb200-train-22", "train-gb200", "NVIDIA-GB200", 4),
                node("gb200-train-23", "train-gb200", "NVIDIA-GB200", 4)));

        assertEquals(OptionalInt.of(4), c.poolCount(tray, "train-gb200", "nvidia.com/gpu"));
    }

    @Test
    void peersOfAnotherProductOrAnotherPoolSayNothing() {
        Node l40s = node("mixed-01", "mixed", "NVIDIA-L40S", 4);
        ClusterCollector c = over(List.of(l40s, node("mixed-02", "mixed", "NVIDIA-H100-80GB-HBM3", 8),
                node("other-01", "other", "NVIDIA-L40S", 8)));

        assertEquals(OptionalInt.empty(), c.poolCount(l40s, "mixed", "nvidia.com/gpu"));
    }

    @Test
    void aPoolWithoutAMajorityCountSaysNothing() {
        Node n = node("p-01", "p", "NVIDIA-H100-80GB-HBM3", 4);
        ClusterCollector c = over(List.of(n, node("p-02", "p", "NVIDIA-H100-80GB-HBM3", 8), node("p-03", "p", "NVIDIA-H100-80GB-HBM3", 6)));

        assertEquals(OptionalInt.empty(), c.poolCount(n, "p", "nvidia.com/gpu"));
    }
}
