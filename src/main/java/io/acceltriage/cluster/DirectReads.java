package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Every read a request to the API server: what the view falls back to, and what replay uses. */
record DirectReads(KubernetesClient client) implements ClusterReads {

    @Override
    public Node node(String name) {
        return client.nodes().withName(name).get();
    }

    @Override
    public List<Node> nodes() {
        return client.nodes().list().getItems();
    }

    @Override
    public Pod pod(String namespace, String name) {
        return client.pods().inNamespace(namespace).withName(name).get();
    }

    @Override
    public List<Pod> podsOn(String node) {
        return client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems();
    }

    @Override
    public List<Pod> podsIn(String namespace) {
        return client.pods().inNamespace(namespace).list().getItems();
    }

    @Override
    public List<Pod> podsLabelled(String namespace, Map<String, String> labels) {
        return client.pods().inNamespace(namespace).withLabels(labels).list().getItems();
    }

    @Override
    public List<Pod> pending() {
        return client.pods().inAnyNamespace().withField("status.phase", "Pending").list().getItems();
    }

    @Override
    public List<Event> events() {
        return client.v1().events().inAnyNamespace().list().getItems();
    }

    @Override
    public List<PodDisruptionBudget> budgets(String namespace) {
        return client.policy().v1().podDisruptionBudget().inNamespace(namespace).list().getItems();
    }

    @Override
    public HasMetadata owner(String kind, String namespace, String name, Supplier<HasMetadata> direct) {
        return direct.get();
    }
}
