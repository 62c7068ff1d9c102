package io.acceltriage.action;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;

/** Small readings of pods and nodes the mitigations share. */
final class Pods {

    private Pods() {}

    static List<Pod> onNode(KubernetesClient client, String node) {
        return client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    }

    static boolean ready(Pod p) {
        return p != null && p.getMetadata().getDeletionTimestamp() == null && p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static boolean ownedByDaemonSet(Pod p) {
        List<OwnerReference> refs = p.getMetadata().getOwnerReferences();
        return refs != null && refs.stream().anyMatch(r -> "DaemonSet".equals(r.getKind()));
    }

    static boolean mirror(Pod p) {
        var a = p.getMetadata().getAnnotations();
        return a != null && a.containsKey("kubernetes.io/config.mirror");
    }

    static boolean fenced(Node n) {
        return n != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    static boolean nodeReady(Node n) {
        return n != null && n.getStatus() != null && n.getStatus().getConditions() != null
                && n.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    static String ref(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }

    /**
     * Evicts a pod through the Eviction API, so PodDisruptionBudgets are honoured. A 429 (the budget
     * allows no disruption now) is retried until {@code timing.evictionTimeout()}; true when evicted.
     */
    static boolean evict(KubernetesClient client, Pod p, boolean dryRun, Timing timing) {
        Eviction eviction = new EvictionBuilder().withNewMetadata().withName(p.getMetadata().getName())
                .withNamespace(p.getMetadata().getNamespace()).endMetadata()
                .withDeleteOptions(new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder()
                        .withDryRun(dryRun ? List.of("All") : List.of()).build())
                .build();
        var resource = client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName());
        return timing.until(timing.evictionTimeout(), () -> {
            try {
                return resource.evict(eviction);
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) return true;
                if (e.getCode() == 429) return false;
                throw e;
            }
        });
    }
}
