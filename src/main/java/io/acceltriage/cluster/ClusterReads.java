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

/**
 * The reads triage, correlation, policy and evidence make of the cluster's objects: straight from the
 * API server ({@link #direct}), or from a watched view ({@link WatchedCluster}) that falls back to the
 * API server for whatever it does not hold yet. A failed read throws the client's exception, as the
 * API server would have; callers keep their own way of turning that into a gap or a refusal.
 */
public interface ClusterReads {

    Node node(String name);

    List<Node> nodes();

    Pod pod(String namespace, String name);

    /** Pods bound to the node. */
    List<Pod> podsOn(String node);

    List<Pod> podsIn(String namespace);

    /** Pods of the namespace carrying every one of the labels. */
    List<Pod> podsLabelled(String namespace, Map<String, String> labels);

    /** Pods in phase Pending, in any namespace. */
    List<Pod> pending();

    List<Event> events();

    List<PodDisruptionBudget> budgets(String namespace);

    /**
     * An owner in the chain {@link Owners} walks: from the view when it watches the kind, else from
     * {@code direct} (the walker's own read). This is the cache-backed {@link Owners.Fetcher}.
     */
    HasMetadata owner(String kind, String namespace, String name, Supplier<HasMetadata> direct);

    /** The client behind these reads: logs, the subresources and writes still go to it. */
    KubernetesClient client();

    /** Each read a request to the API server. */
    static ClusterReads direct(KubernetesClient client) {
        return new DirectReads(client);
    }
}
