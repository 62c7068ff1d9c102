package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Hands a node to whatever repairs nodes in the cluster (reboot, reimage, replace), after draining it:
 * acceltriage lets go of the node and the repairer says when it is done. Two protocols, per policy
 * ({@code repair.protocol}):
 *
 * <ul>
 *   <li>{@code handshake} (NVSentinel's external remediation): the taint {@value #TAINT}{@code =requested:NoSchedule}
 *       and the label {@value #LABEL}{@code =requested}; the repairer sets the label to {@code complete}
 *       or {@code failed}, its own words in the annotation {@value #MESSAGE}.
 *   <li>{@code medik8s} (NodeHealthCheck remediation templates): a remediation CR named after the node
 *       (e.g. SelfNodeRemediation), which the remediator acts on and marks {@code Succeeded}; the label
 *       {@value #LABEL}{@code =requested} says the node is with repair.
 * </ul>
 *
 * A health label or validation from before the repair is removed, so {@link ReturnNode} can only trust a check run after it.
 */
final class RepairNode implements Mitigation {

    static final String LABEL = "acceltriage.io/repair";
    static final String TAINT = "acceltriage.io/repair";
    static final String MESSAGE = "acceltriage.io/repair-message";
    static final String REQUESTED_AT = "acceltriage.io/repair-requested-at";

    private final KubernetesClient client;
    private final DrainNode drain;
    private final Supplier<Policy> policy;
    private final Timing timing;

    RepairNode(KubernetesClient client, Supplier<Policy.Taint> taint, Supplier<Policy> policy, Timing timing) {
        this.client = client;
        this.drain = new DrainNode(client, taint, timing);
        this.policy = policy;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REPAIR_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        String node = target.name();
        Outcome drained = drain.apply(target, dryRun);
        if (!drained.success()) {
            return Outcome.failed(drained.detail() + "; the node is not handed to repair while workloads are on it", false);
        }
        String protocol = protocol();
        if (dryRun) {
            return Outcome.done(drained.detail() + "; would hand " + node + " to repair (" + protocol + ")");
        }
        String health = healthLabel().key();
        client.nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            b.editMetadata().addToLabels(LABEL, "requested").removeFromLabels(health).removeFromLabels(ValidateNode.LABEL)
                    .removeFromAnnotations(MESSAGE)
                    .addToAnnotations(REQUESTED_AT, Instant.now().toString()).endMetadata();
            if ("handshake".equals(protocol) && !hasTaint(n)) b.editSpec().addToTaints(taint()).endSpec();
            return b.build();
        });
        if ("medik8s".equals(protocol)) {
            Policy.Remediation r = policy.get().remediation();
            if (remediation(r, node) == null) {
                remediations(client, r).resource(new GenericKubernetesResourceBuilder().withApiVersion(r.apiVersion()).withKind(r.kind())
                                .withNewMetadata().withName(node).withNamespace(r.namespace())
                                .addToLabels("app.kubernetes.io/managed-by", "acceltriage").endMetadata().build())
                        .create();
            }
            return Outcome.done(drained.detail() + "; handed " + node + " to repair: created " + r.kind() + " " + r.namespace() + "/" + node);
        }
        return Outcome.done(drained.detail() + "; handed " + node + " to repair: label " + LABEL + "=requested, taint " + TAINT
                + ":NoSchedule; the repairer answers with " + LABEL + "=complete|failed");
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        boolean handed = timing.until(timing.verifyTimeout(), () -> {
            Node n = client.nodes().withName(target.name()).get();
            return n != null && Pods.fenced(n) && n.getMetadata().getLabels() != null
                    && n.getMetadata().getLabels().containsKey(LABEL);
        });
        return handed ? Outcome.done("node " + target.name() + " is cordoned and with repair")
                : Outcome.failed("node " + target.name() + " no longer carries the repair hand-over or was uncordoned", false);
    }

    private String protocol() {
        return policy.get() == null ? "handshake" : policy.get().repairProtocol();
    }

    private Policy.HealthLabel healthLabel() {
        return policy.get() == null ? Policy.DEFAULT_HEALTH_LABEL : policy.get().healthLabel();
    }

    GenericKubernetesResource remediation(Policy.Remediation r, String node) {
        return remediations(client, r).withName(node).get();
    }

    /**
     * The remediation CRs of the policy's kind. Named by an explicit definition: the CRD may be
     * unknown to the client's discovery, and a medik8s remediator's plural is its kind, lower case, plus "s".
     */
    static io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource, io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
            io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> remediations(KubernetesClient client, Policy.Remediation r) {
        int slash = r.apiVersion().indexOf('/');
        var context = new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
                .withGroup(slash < 0 ? "" : r.apiVersion().substring(0, slash))
                .withVersion(r.apiVersion().substring(slash + 1)).withKind(r.kind())
                .withPlural(r.kind().toLowerCase(java.util.Locale.ROOT) + "s").withNamespaced(true).build();
        return client.genericKubernetesResources(context).inNamespace(r.namespace());
    }

    /**
     * Still with repair: under the handshake the repairer has not answered; under medik8s the
     * remediation CR has not succeeded (the CR, not the label, is medik8s's answer).
     */
    static java.util.Optional<String> stillWithRepair(KubernetesClient client, Policy p, Node n) {
        String node = n.getMetadata().getName();
        String state = labels(n).get(LABEL);
        if (p == null || !"medik8s".equals(p.repairProtocol())) {
            return "requested".equals(state)
                    ? java.util.Optional.of("the repairer has not answered yet (label " + LABEL + "=requested)") : java.util.Optional.empty();
        }
        Policy.Remediation r = p.remediation();
        GenericKubernetesResource cr = remediations(client, r).withName(node).get();
        if (cr == null) return java.util.Optional.empty();
        Object status = cr.getAdditionalProperties().get("status");
        boolean succeeded = status instanceof Map<?, ?> s && s.get("conditions") instanceof List<?> cs && cs.stream()
                .anyMatch(c -> c instanceof Map<?, ?> m && "Succeeded".equals(m.get("type")) && "True".equals(m.get("status")));
        return succeeded ? java.util.Optional.empty() : java.util.Optional.of(r.kind() + " " + r.namespace() + "/" + node + " has not succeeded yet");
    }

    static Taint taint() {
        return new TaintBuilder().withKey(TAINT).withValue("requested").withEffect("NoSchedule").build();
    }

    static boolean hasTaint(Node n) {
        return n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(t -> TAINT.equals(t.getKey()));
    }

    static Map<String, String> labels(Node n) {
        return n == null || n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }

    static Map<String, String> annotations(Node n) {
        return n == null || n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
    }
}
