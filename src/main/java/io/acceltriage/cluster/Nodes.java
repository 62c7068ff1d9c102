package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The nodes as the pages and chat show them, read now: labels, whether cordoned, conditions, and the
 * capacity and allocatable of each resource. A read that fails is {@link ClusterUnreadable}.
 */
public final class Nodes {

    public record Condition(String type, String status, String reason, String message) {}

    public record NodeInfo(String name, Map<String, String> labels, boolean cordoned, List<Condition> conditions,
            Map<String, String> capacity, Map<String, String> allocatable) {

        /** "True", "False" or "Unknown" as the kubelet reports Ready; "unknown" when it reports nothing. */
        public String ready() {
            return conditions.stream().filter(c -> "Ready".equals(c.type())).map(Condition::status).findFirst().orElse("unknown");
        }

        /** Whole units of a resource (capacity or allocatable); 0 when absent or not a whole number. */
        public int amount(String resource, boolean ofCapacity) {
            String v = resource == null ? null : (ofCapacity ? capacity : allocatable).get(resource);
            try {
                return v == null ? 0 : Integer.parseInt(v);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
    }

    private final ClusterReads reads;

    public Nodes(ClusterReads reads) {
        this.reads = reads;
    }

    public List<NodeInfo> list() {
        try {
            return reads.nodes().stream().map(Nodes::info).toList();
        } catch (KubernetesClientException e) {
            throw new ClusterUnreadable(e.getMessage(), e);
        }
    }

    public Optional<NodeInfo> get(String name) {
        try {
            return Optional.ofNullable(reads.node(name)).map(Nodes::info);
        } catch (KubernetesClientException e) {
            throw new ClusterUnreadable("HTTP " + e.getCode() + ": " + e.getMessage(), e);
        }
    }

    private static NodeInfo info(Node n) {
        var status = n.getStatus();
        List<Condition> conditions = status == null || status.getConditions() == null ? List.of()
                : status.getConditions().stream().map(c -> new Condition(c.getType(), c.getStatus(), c.getReason(), c.getMessage())).toList();
        return new NodeInfo(n.getMetadata().getName(), n.getMetadata().getLabels() == null ? Map.of() : Map.copyOf(n.getMetadata().getLabels()),
                n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable()), conditions,
                amounts(status == null ? null : status.getCapacity()), amounts(status == null ? null : status.getAllocatable()));
    }

    private static Map<String, String> amounts(Map<String, Quantity> q) {
        return q == null ? Map.of() : q.entrySet().stream().filter(e -> e.getValue() != null && e.getValue().getAmount() != null)
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> e.getValue().getAmount()));
    }
}
