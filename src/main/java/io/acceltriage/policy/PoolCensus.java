package io.acceltriage.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Reads pools and opt-out labels from the live cluster, so limits are applied to the world as it is now. */
public final class PoolCensus implements ClusterFacts {

    private final KubernetesClient client;
    private final List<String> poolLabels;
    private final List<String> acceleratorResources;

    public PoolCensus(KubernetesClient client, List<String> poolLabels, List<String> acceleratorResources) {
        this.client = client;
        this.poolLabels = poolLabels;
        this.acceleratorResources = acceleratorResources;
    }

    @Override
    public PoolState poolOf(String nodeName) {
        Node target = client.nodes().withName(nodeName).get();
        String pool = target == null ? null : pool(target);
        int nodes = 0;
        int cordoned = 0;
        int healthyOthers = 0;
        for (Node n : client.nodes().list().getItems()) {
            if (!Objects.equals(pool, pool(n)) || (pool == null && !accelerated(n))) continue;
            nodes++;
            boolean unschedulable = Boolean.TRUE.equals(n.getSpec().getUnschedulable());
            if (unschedulable) {
                cordoned++;
            } else if (ready(n) && !n.getMetadata().getName().equals(nodeName)) {
                healthyOthers++;
            }
        }
        boolean targetCordoned = target != null && Boolean.TRUE.equals(target.getSpec().getUnschedulable());
        return new PoolState(pool == null ? "(no pool label)" : pool, nodes, cordoned, healthyOthers, targetCordoned);
    }

    @Override
    public boolean optedOut(ActionKind kind, String target, String label) {
        if (kind.targetsNode()) {
            Node n = client.nodes().withName(target).get();
            return n != null && hasLabel(n, label);
        }
        int slash = target.indexOf('/');
        if (slash < 0) return false;
        String ns = target.substring(0, slash);
        String name = target.substring(slash + 1);
        HasMetadata o = switch (kind) {
            case RESTART_POD -> client.pods().inNamespace(ns).withName(name).get();
            case SHIFT_REPLICAS -> client.apps().deployments().inNamespace(ns).withName(name).get();
            default -> null;
        };
        return o != null && hasLabel(o, label);
    }

    private static boolean hasLabel(HasMetadata o, String label) {
        Map<String, String> labels = o.getMetadata().getLabels();
        return labels != null && labels.containsKey(label) && !"false".equalsIgnoreCase(labels.get(label));
    }

    private String pool(Node n) {
        Map<String, String> labels = n.getMetadata().getLabels();
        if (labels == null) return null;
        for (String l : poolLabels) {
            if (labels.containsKey(l)) return labels.get(l);
        }
        return null;
    }

    private boolean accelerated(Node n) {
        var cap = n.getStatus() == null ? null : n.getStatus().getCapacity();
        return cap != null && acceleratorResources.stream().anyMatch(cap::containsKey);
    }

    private static boolean ready(Node n) {
        if (n.getStatus() == null || n.getStatus().getConditions() == null) return false;
        for (NodeCondition c : n.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) return "True".equals(c.getStatus());
        }
        return false;
    }
}
