package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.acceltriage.cluster.ClusterReads;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Supplier;
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
        ClusterReads reads = new ClusterReads() {
            public Node node(String name) { return nodes.stream().filter(n -> n.getMetadata().getName().equals(name)).findFirst().orElse(null); }
            public List<Node> nodes() { return nodes; }
            public Pod pod(String namespace, String name) { return null; }
            public List<Pod> podsOn(String node) { return List.of(); }
            public List<Pod> podsIn(String namespace) { return List.of(); }
            public List<Pod> podsLabelled(String namespace, Map<String, String> labels) { return List.of(); }
            public List<Pod> pending() { return List.of(); }
            public List<Event> events() { return List.of(); }
            public List<PodDisruptionBudget> budgets(String namespace) { return List.of(); }
            public HasMetadata owner(String kind, String namespace, String name, Supplier<HasMetadata> direct) { return null; }
            public KubernetesClient client() { return null; }
        };
        return new ClusterCollector(reads, NodeAgents.load(), Runnable::run);
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
