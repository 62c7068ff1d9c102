package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
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
 * {@code reboot-node} (formerly {@code repair-node}): hands a node to whatever repairs nodes in its pool
 * to be rebooted, after draining it; acceltriage lets go of the node and waits for it to come back.
 * The protocol is the pool's ({@code repair.pools}, else {@code repair.protocol}; see {@link Repairers}):
 * {@code handshake} (taint and label, the repairer answers on the label), {@code medik8s} (a remediation
 * CR named after the node, which the remediator marks {@code Succeeded}), {@code clusterapi} (the owning
 * Machine marked for its MachineHealthCheck's remediation; back when the node is Ready with a new boot id).
 * Karpenter cannot reboot a node: under {@code karpenter} the action refuses and says to replace it.
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
    private final List<String> poolLabels;
    private final Timing timing;
    private final Repairers repairers;

    RepairNode(KubernetesClient client, Supplier<Policy.Taint> taint, Supplier<Policy> policy, List<String> poolLabels, Timing timing) {
        this.client = client;
        this.drain = new DrainNode(client, taint, timing);
        this.policy = policy;
        this.poolLabels = poolLabels;
        this.timing = timing;
        this.repairers = new Repairers(client);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REPAIR_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client), new ProtocolCan(client, policy, poolLabels, Repairers.Asked.REBOOT));
    }

    /** The pool's protocol can do what is asked (Karpenter cannot reboot): refused before the node is drained. */
    record ProtocolCan(KubernetesClient client, Supplier<Policy> policy, List<String> poolLabels, Repairers.Asked asked)
            implements Precondition {
        public String name() {
            return "protocol-can-" + asked.word();
        }

        public java.util.Optional<String> unmet(Mitigation.Target t) {
            Node n = client.nodes().withName(t.name()).get();
            if (n == null) return java.util.Optional.empty();
            return Repairers.unable(protocol(policy.get(), Repairers.pool(n, poolLabels)), asked);
        }
    }

    static String protocol(Policy p, String pool) {
        return p == null ? "handshake" : p.repairProtocol(pool);
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        return handOver(client, drain, policy.get(), poolLabels, target, dryRun, Repairers.Asked.REBOOT);
    }

    /**
     * Drains the node, marks it handed over (label, time, protocol, boot id, what is asked) and asks the
     * pool's repairer. Shared by reboot-node and replace-node, which differ in what they wait for.
     */
    static Outcome handOver(KubernetesClient client, DrainNode drain, Policy p, List<String> poolLabels, Mitigation.Target target,
            boolean dryRun, Repairers.Asked asked) {
        String node = target.name();
        Node before = client.nodes().withName(node).get();
        if (before == null) return Outcome.failed("node " + node + " does not exist", false);
        String protocol = protocol(p, Repairers.pool(before, poolLabels));
        java.util.Optional<String> unable = Repairers.unable(protocol, asked);
        if (unable.isPresent()) return Outcome.failed(unable.get(), false);
        Outcome drained = drain.apply(target, dryRun);
        if (!drained.success()) {
            return Outcome.failed(drained.detail() + "; the node is not handed to repair while workloads are on it", false);
        }
        if (dryRun) {
            return Outcome.done(drained.detail() + "; would hand " + node + " to repair (" + protocol + ") to " + asked.word() + " it");
        }
        String health = p == null ? Policy.DEFAULT_HEALTH_LABEL.key() : p.healthLabel().key();
        client.nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            b.editMetadata().addToLabels(LABEL, "requested").removeFromLabels(health).removeFromLabels(ValidateNode.LABEL)
                    .removeFromAnnotations(MESSAGE)
                    .addToAnnotations(REQUESTED_AT, Instant.now().toString()).addToAnnotations(Repairers.PROTOCOL, protocol)
                    .addToAnnotations(Repairers.ASKED, asked.word()).endMetadata();
            String boot = Repairers.bootId(n);
            if (boot != null) b.editMetadata().addToAnnotations(Repairers.BOOT_ID, boot).endMetadata();
            if ("handshake".equals(protocol) && !hasTaint(n)) b.editSpec().addToTaints(taint()).endSpec();
            return b.build();
        });
        try {
            return Outcome.done(drained.detail() + "; handed " + node + " to repair (" + protocol + ", " + asked.word() + "): "
                    + new Repairers(client).ask(before, protocol, asked, p));
        } catch (Repairers.Refused e) {
            return Outcome.failed(drained.detail() + "; " + e.getMessage() + "; the node stays cordoned and drained", false);
        }
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
     * remediation CR has not succeeded (the CR, not the label, is medik8s's answer); under Cluster API,
     * which answers nothing of its own, the node has not come back Ready with a new boot id.
     */
    static java.util.Optional<String> stillWithRepair(KubernetesClient client, Policy p, Node n) {
        String node = n.getMetadata().getName();
        String state = labels(n).get(LABEL);
        String protocol = Repairers.protocolOf(n, p);
        if ("clusterapi".equals(protocol) || "karpenter".equals(protocol)) {
            String before = annotations(n).get(Repairers.BOOT_ID);
            if (before == null || !"requested".equals(state)) return java.util.Optional.empty();
            if (before.equals(Repairers.bootId(n))) {
                return java.util.Optional.of("node " + node + " has not rebooted yet (boot id " + before + " unchanged)");
            }
            return Pods.nodeReady(n) ? java.util.Optional.empty()
                    : java.util.Optional.of("node " + node + " rebooted but is not Ready yet");
        }
        if (!"medik8s".equals(protocol) || p == null || p.remediation() == null) {
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
