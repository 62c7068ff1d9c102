package io.acceltriage.action;

import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whatever repairs a pool's nodes, and how acceltriage asks it to reboot or replace one
 * ({@code repair.protocol}, per pool {@code repair.pools}). Each protocol is one the repairer
 * already speaks:
 *
 * <ul>
 *   <li>{@code handshake} (NVSentinel's external remediation): taint and label {@value RepairNode#LABEL}{@code =requested},
 *       what is asked in {@value #ASKED}; the repairer answers {@code complete} or {@code failed}.
 *   <li>{@code medik8s} (NodeHealthCheck remediation templates): a remediation CR named after the node; the
 *       remediator marks it {@code Succeeded}. Whether it reboots (SelfNodeRemediation) or replaces
 *       (MachineDeletionRemediation) is the template's, so the policy's kind must fit the action asked.
 *   <li>{@code clusterapi}: the Machine that owns the node (the node's {@value #CAPI_MACHINE} and
 *       {@value #CAPI_NAMESPACE} annotations, which Cluster API writes on every node it makes) gets
 *       {@value #CAPI_REMEDIATE}: its MachineHealthCheck marks it unhealthy ({@code HealthCheckSucceeded=False},
 *       reason {@code HasRemediateMachineAnnotation}, Cluster API ≥ 1.7, {@code api/v1beta1/common_types.go})
 *       and remediates it the way the MachineHealthCheck says: its {@code remediationTemplate} (an infrastructure
 *       provider's external remediation, e.g. Metal3Remediation, reboots) or, without one, the owning MachineSet
 *       deletes the Machine and makes a new one (a replacement). No answer of its own: a reboot is over when the
 *       node is Ready with a new boot id, a replacement when a new node joined the pool.
 *   <li>{@code karpenter}: the node's NodeClaim ({@code karpenter.sh/v1}, the one whose {@code status.nodeName}
 *       is the node) is deleted; Karpenter's termination controller drains the node and ends the instance, and
 *       the NodePool provisions a new node for the pods left pending. Karpenter never reboots.
 * </ul>
 */
final class Repairers {

    /** On the node handed over: the protocol used, so the answer is read the same way whatever the policy says later. */
    static final String PROTOCOL = "acceltriage.io/repair-protocol";
    /** On the node handed over: reboot or replace, for a handshake repairer that does both. */
    static final String ASKED = "acceltriage.io/repair-action";
    /** On the node handed over: its boot id then, so a reboot is seen when it changes. */
    static final String BOOT_ID = "acceltriage.io/repair-boot-id";
    /** On a replacement: the node it stands in for; validate-node and return-node proposed for that node act on it. */
    static final String REPLACES = "acceltriage.io/replaces";

    static final String CAPI_MACHINE = "cluster.x-k8s.io/machine";
    static final String CAPI_NAMESPACE = "cluster.x-k8s.io/cluster-namespace";
    static final String CAPI_REMEDIATE = "cluster.x-k8s.io/remediate-machine";

    static final ResourceDefinitionContext MACHINES = new ResourceDefinitionContext.Builder().withGroup("cluster.x-k8s.io")
            .withVersion("v1beta1").withKind("Machine").withPlural("machines").withNamespaced(true).build();
    static final ResourceDefinitionContext NODECLAIMS = new ResourceDefinitionContext.Builder().withGroup("karpenter.sh")
            .withVersion("v1").withKind("NodeClaim").withPlural("nodeclaims").withNamespaced(false).build();

    enum Asked {
        REBOOT, REPLACE;

        String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final KubernetesClient client;

    Repairers(KubernetesClient client) {
        this.client = client;
    }

    /** Why this protocol cannot do what is asked; empty when it can. */
    static Optional<String> unable(String protocol, Asked asked) {
        if (Policy.REPLACE_ONLY_PROTOCOLS.contains(protocol) && asked == Asked.REBOOT) {
            return Optional.of("Karpenter replaces nodes, it never reboots one: propose replace-node for this pool, or give the pool"
                    + " another protocol in repair.pools");
        }
        return Optional.empty();
    }

    /**
     * Asks the pool's repairer (the node already marked as handed over). Returns what was done, in
     * words for the action's detail, or throws {@link Refused} with the reason it could not be asked.
     */
    String ask(Node n, String protocol, Asked asked, Policy policy) {
        String node = n.getMetadata().getName();
        switch (protocol) {
            case "medik8s": {
                Policy.Remediation r = policy.remediation();
                if (RepairNode.remediations(client, r).withName(node).get() == null) {
                    RepairNode.remediations(client, r).resource(new GenericKubernetesResourceBuilder().withApiVersion(r.apiVersion())
                            .withKind(r.kind()).withNewMetadata().withName(node).withNamespace(r.namespace())
                            .addToLabels("app.kubernetes.io/managed-by", "acceltriage").endMetadata().build()).create();
                }
                return "created " + r.kind() + " " + r.namespace() + "/" + node;
            }
            case "clusterapi": {
                Map<String, String> notes = RepairNode.annotations(n);
                String machine = notes.get(CAPI_MACHINE);
                String namespace = notes.get(CAPI_NAMESPACE);
                if (machine == null || namespace == null) {
                    throw new Refused("node " + node + " names no Cluster API Machine (annotations " + CAPI_MACHINE + ", " + CAPI_NAMESPACE
                            + "): its pool is not managed by Cluster API; set its protocol in repair.pools");
                }
                var m = client.genericKubernetesResources(MACHINES).inNamespace(namespace).withName(machine);
                if (m.get() == null) throw new Refused("Machine " + namespace + "/" + machine + " of node " + node + " does not exist");
                m.edit(x -> {
                    Map<String, String> a = x.getMetadata().getAnnotations() == null ? new HashMap<>()
                            : new HashMap<>(x.getMetadata().getAnnotations());
                    a.put(CAPI_REMEDIATE, "");
                    x.getMetadata().setAnnotations(a);
                    return x;
                });
                return "annotated Machine " + namespace + "/" + machine + " " + CAPI_REMEDIATE + " for its MachineHealthCheck to remediate"
                        + (asked == Asked.REBOOT ? " (a reboot needs the MachineHealthCheck's external remediation template)"
                                : " (its MachineSet replaces it)");
            }
            case "karpenter": {
                GenericKubernetesResource claim = nodeClaim(node).orElseThrow(() -> new Refused("node " + node
                        + " has no Karpenter NodeClaim (none has status.nodeName " + node + "): its pool is not managed by Karpenter;"
                        + " set its protocol in repair.pools"));
                client.genericKubernetesResources(NODECLAIMS).withName(claim.getMetadata().getName()).delete();
                return "deleted NodeClaim " + claim.getMetadata().getName() + "; Karpenter drains and ends the instance and its NodePool"
                        + " provisions a new node";
            }
            default:
                return "label " + RepairNode.LABEL + "=requested, " + ASKED + "=" + asked.word() + ", taint " + RepairNode.TAINT
                        + ":NoSchedule; the repairer answers with " + RepairNode.LABEL + "=complete|failed";
        }
    }

    Optional<GenericKubernetesResource> nodeClaim(String node) {
        return client.genericKubernetesResources(NODECLAIMS).list().getItems().stream()
                .filter(c -> c.getAdditionalProperties().get("status") instanceof Map<?, ?> s && node.equals(s.get("nodeName")))
                .findFirst();
    }

    /** The protocol a node was handed over with; the policy's for nodes handed over before it was recorded. */
    static String protocolOf(Node n, Policy p) {
        String recorded = RepairNode.annotations(n).get(PROTOCOL);
        return recorded != null ? recorded : p == null ? "handshake" : p.repairProtocol();
    }

    /**
     * The node that stands for {@code name} now: the replacement that joined in its place (the old node may
     * linger while its repairer drains and ends it), else the node itself. return-node clears the mark.
     */
    static Optional<Node> standingFor(KubernetesClient client, String name) {
        List<Node> all = client.nodes().list().getItems();
        return all.stream().filter(x -> name.equals(RepairNode.annotations(x).get(REPLACES))).findFirst()
                .or(() -> Optional.ofNullable(client.nodes().withName(name).get()));
    }

    /** The node's pool: the value of the first of the pool labels it carries; null when it carries none. */
    static String pool(Node n, List<String> poolLabels) {
        Map<String, String> labels = RepairNode.labels(n);
        return poolLabels.stream().filter(labels::containsKey).map(labels::get).findFirst().orElse(null);
    }

    static String bootId(Node n) {
        return n.getStatus() == null || n.getStatus().getNodeInfo() == null ? null : n.getStatus().getNodeInfo().getBootID();
    }

    /** The protocol could not be asked; nothing of the hand-over is left to the repairer. */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }
}
