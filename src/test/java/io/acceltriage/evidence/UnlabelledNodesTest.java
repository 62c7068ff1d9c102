package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pending pod selecting on a label a node agent writes from the node's devices (GPU feature discovery's
 * nvidia.com/gpu.product): a node that offers the pod's accelerators but carries none of that label, while other
 * nodes carry the value the pod wants, is that agent labelling nothing there; its agents are read.
 */
class UnlabelledNodesTest {

    static final String PRODUCT = "nvidia.com/gpu.product";
    static final String H100 = "NVIDIA-H100-80GB-HBM3";

    static Node node(String name, Map<String, String> labels, int gpus) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels(labels).endMetadata().withNewSpec().endSpec()
                .withNewStatus().addToCapacity("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
                .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(gpus))).endStatus().build();
    }

    static Pod pending(Map<String, String> selector) {
        return new PodBuilder().withNewMetadata().withName("triton-m9n8b").withNamespace("serve").endMetadata().withNewSpec()
                .addToNodeSelector(selector).addNewContainer().withName("triton").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("4")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Pending").endStatus().build();
    }

    static Pod gfdOn(String node) {
        return new PodBuilder().withNewMetadata().withName("gpu-feature-discovery-3a937").withNamespace("gpu-operator").addNewOwnerReference()
                .withKind("DaemonSet").withName("gpu-feature-discovery").withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).endSpec().build();
    }

    static ClusterCollector over(List<Node> nodes, List<Pod> pods) {
        return FixedClusters.over(nodes, pods);
    }

    @Test
    void aNodeOfferingTheGpusWithoutTheProductLabelItsPeersCarryIsNamedAndItsAgentsRead() {
        List<Node> nodes = List.of(node("h100-infer-10", Map.of(PRODUCT, H100), 8), node("h100-infer-11", Map.of("nvidia.com/gpu.present", "true"), 8),
                node("h100-infer-12", Map.of(PRODUCT, H100), 8));
        List<Observation> obs = new ArrayList<>();

        List<Pod> agents = over(nodes, List.of(gfdOn("h100-infer-11"))).observeUnoffered(List.of(pending(Map.of(PRODUCT, H100))), obs);

        List<Facts.Unoffered> named = obs.stream().map(Observation::fact).filter(Facts.Unoffered.class::isInstance).map(Facts.Unoffered.class::cast).toList();
        assertEquals(List.of("h100-infer-11"), named.stream().map(Facts.Unoffered::node).toList());
        assertTrue(named.get(0).what().contains("gpu-feature-discovery"), named.get(0).what());
        assertEquals(List.of("gpu-feature-discovery-3a937"), agents.stream().map(p -> p.getMetadata().getName()).toList());
    }

    @Test
    void aProductNoNodeCarriesIsThePodsOwnRequestNotAnAgentsFault() {
        List<Node> nodes = List.of(node("h100-infer-10", Map.of(PRODUCT, H100), 8), node("h100-infer-11", Map.of(), 8));
        List<Observation> obs = new ArrayList<>();

        over(nodes, List.of()).observeUnoffered(List.of(pending(Map.of(PRODUCT, "NVIDIA-B200"))), obs);

        assertTrue(obs.isEmpty(), obs.toString());
    }

    @Test
    void aNodeWithoutTheGpusThePodAsksForIsNotNamed() {
        List<Node> nodes = List.of(node("h100-infer-10", Map.of(PRODUCT, H100), 8), new NodeBuilder().withNewMetadata().withName("cpu-01").endMetadata()
                .withNewSpec().endSpec().withNewStatus().addToCapacity("cpu", new Quantity("64")).endStatus().build());
        List<Observation> obs = new ArrayList<>();

        over(nodes, List.of()).observeUnoffered(List.of(pending(Map.of(PRODUCT, H100))), obs);

        assertTrue(obs.stream().noneMatch(o -> o.fact() instanceof Facts.Unoffered u && u.node().equals("cpu-01")), obs.toString());
    }
}
