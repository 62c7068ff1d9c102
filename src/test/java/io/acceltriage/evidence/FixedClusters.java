package io.acceltriage.evidence;

import io.acceltriage.cluster.ClusterReads;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** A cluster collector over fixed nodes and pods, nothing pending, no events, no owners: for the node-level rules. */
final class FixedClusters {

    private FixedClusters() {}

    static ClusterCollector over(List<Node> nodes, List<Pod> pods) {
        ClusterReads reads = new ClusterReads() {
            public Node node(String name) { return nodes.stream().filter(n -> n.getMetadata().getName().equals(name)).findFirst().orElse(null); }
            public List<Node> nodes() { return nodes; }
            public Pod pod(String namespace, String name) { return null; }
            public List<Pod> podsOn(String node) { return pods.stream().filter(p -> node.equals(p.getSpec().getNodeName())).toList(); }
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
}
