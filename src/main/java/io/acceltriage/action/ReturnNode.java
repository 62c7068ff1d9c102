package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Takes a repaired node back into service, only after it proves healthy: the repairer said it is done
 * (and did not say it failed), the node is Ready, every GPU is advertised again, and a health check
 * run after the repair (DCGM diagnostics, IBM Autopilot; {@code repair.healthLabel} in policy) passed.
 * Then the hand-over is cleared and the node uncordoned. A node that fails stays fenced and the
 * failure carries the check's own words. Undone by cordoning again.
 */
final class ReturnNode implements Mitigation {

    private final KubernetesClient client;
    private final Supplier<Policy.Taint> taint;
    private final Supplier<Policy> policy;
    private final Timing timing;

    ReturnNode(KubernetesClient client, Supplier<Policy.Taint> taint, Supplier<Policy> policy, Timing timing) {
        this.client = client;
        this.taint = taint;
        this.policy = policy;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RETURN_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeFenced(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        String node = target.name();
        Node n = client.nodes().withName(node).get();
        if (n == null) return Outcome.failed("node " + node + " does not exist", false);
        Optional<String> unfit = unfit(n);
        if (unfit.isPresent()) {
            return Outcome.failed("node " + node + " stays fenced: " + unfit.get(), false);
        }
        String passed = ValidateNode.passedAt(n).isPresent()
                ? RepairNode.annotations(n).getOrDefault(ValidateNode.MESSAGE, "validate-node passed")
                : "health check " + health().key() + "=" + health().pass();
        if (dryRun) {
            return Outcome.done("dry run: " + node + " passed validation (" + passed + "); would clear the repair hand-over and uncordon it");
        }
        Policy.Remediation r = policy.get() == null ? null : policy.get().remediation();
        String protocol = Repairers.protocolOf(n, policy.get());
        if (r != null && "medik8s".equals(protocol)) {
            RepairNode.remediations(client, r).withName(node).delete();
        }
        if ("clusterapi".equals(protocol)) unmarkMachine(n);
        client.nodes().withName(node).edit(x -> {
            NodeBuilder b = new NodeBuilder(x);
            b.editMetadata().removeFromLabels(RepairNode.LABEL).removeFromAnnotations(RepairNode.MESSAGE)
                    .removeFromAnnotations(RepairNode.REQUESTED_AT).removeFromAnnotations(Repairers.PROTOCOL)
                    .removeFromAnnotations(Repairers.ASKED).removeFromAnnotations(Repairers.BOOT_ID).endMetadata();
            // Repairers.REPLACES stays: an undo of this return finds the replacement by it
            if (x.getSpec().getTaints() != null) {
                b.editSpec().withTaints(x.getSpec().getTaints().stream().filter(t -> !RepairNode.TAINT.equals(t.getKey())).toList())
                        .endSpec();
            }
            return b.build();
        });
        Outcome open = new CordonNode(client, taint, timing).undo(target);
        return Outcome.done(node + " passed validation (Ready, every GPU advertised, " + passed + "); cleared the repair hand-over; "
                + open.detail());
    }

    /**
     * A Machine rebooted by its MachineHealthCheck's external remediation must not keep the remediation
     * request, or it would be remediated again; the controller usually clears it, this makes sure.
     */
    private void unmarkMachine(Node n) {
        Map<String, String> notes = RepairNode.annotations(n);
        String machine = notes.get(Repairers.CAPI_MACHINE);
        String namespace = notes.get(Repairers.CAPI_NAMESPACE);
        if (machine == null || namespace == null) return;
        var m = client.genericKubernetesResources(Repairers.MACHINES).inNamespace(namespace).withName(machine);
        var found = m.get();
        if (found == null || found.getMetadata().getAnnotations() == null
                || !found.getMetadata().getAnnotations().containsKey(Repairers.CAPI_REMEDIATE)) return;
        m.edit(x -> {
            var a = new java.util.HashMap<>(x.getMetadata().getAnnotations());
            a.remove(Repairers.CAPI_REMEDIATE);
            x.getMetadata().setAnnotations(a);
            return x;
        });
    }

    /** Why the node may not come back yet, in the words of whoever said so; empty when it may. */
    private Optional<String> unfit(Node n) {
        Map<String, String> labels = RepairNode.labels(n);
        Map<String, String> notes = n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
        String said = notes.getOrDefault(RepairNode.MESSAGE, "");
        String state = labels.get(RepairNode.LABEL);
        if ("failed".equals(state)) return Optional.of("the repairer reports failure" + (said.isEmpty() ? "" : ": " + said));
        Optional<String> withRepair = RepairNode.stillWithRepair(client, policy.get(), n);
        if (withRepair.isPresent()) return withRepair;
        if (!Pods.nodeReady(n)) return Optional.of("the node is not Ready");
        var capacity = n.getStatus().getCapacity() == null ? null : n.getStatus().getCapacity().get(ResetGpu.GPU);
        var allocatable = n.getStatus().getAllocatable() == null ? null : n.getStatus().getAllocatable().get(ResetGpu.GPU);
        if (capacity != null && (allocatable == null
                || allocatable.getNumericalAmount().intValue() < capacity.getNumericalAmount().intValue())) {
            return Optional.of("it advertises " + (allocatable == null ? 0 : allocatable.getNumericalAmount().intValue()) + " of "
                    + capacity.getNumericalAmount().intValue() + " GPUs");
        }
        Optional<Instant> validated = ValidateNode.passedAt(n);
        Optional<Instant> repaired = requestedAt(notes);
        if (validated.isPresent() && (repaired.isEmpty() || validated.get().isAfter(repaired.get()))) return Optional.empty();
        String validation = "failed".equals(labels.get(ValidateNode.LABEL))
                ? "validate-node failed: " + notes.getOrDefault(ValidateNode.MESSAGE, "")
                : "no validate-node has passed since the repair";
        if (!healthLabelAccepted()) return Optional.of(validation);
        String health = labels.get(health().key());
        if (!health().pass().equals(health)) {
            String diag = notes.get(health().key());
            return Optional.of(validation + ", and " + (health == null ? "no health check has run since the repair (label " + health().key() + " missing)"
                    : "health check " + health().key() + "=" + health + (diag == null ? "" : ": " + diag)));
        }
        return Optional.empty();
    }

    /** The health label counts where the policy names one (or there is no policy, as in the tools' defaults). */
    private boolean healthLabelAccepted() {
        return policy.get() == null || policy.get().healthLabelConfigured();
    }

    private static Optional<Instant> requestedAt(Map<String, String> notes) {
        try {
            return Optional.ofNullable(notes.get(RepairNode.REQUESTED_AT)).map(Instant::parse);
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        boolean open = timing.until(timing.verifyTimeout(), () -> {
            Node n = client.nodes().withName(target.name()).get();
            return n != null && !Pods.fenced(n) && !RepairNode.labels(n).containsKey(RepairNode.LABEL);
        });
        return open ? Outcome.done("node " + target.name() + " is schedulable again")
                : Outcome.failed("node " + target.name() + " is still cordoned or with repair", false);
    }

    @Override
    public boolean undoable() {
        return true;
    }

    /** Fences the node again: the return was a mistake, nothing new should land there. */
    @Override
    public Outcome undo(Mitigation.Target target) {
        return new CordonNode(client, taint, timing).apply(target, false);
    }

    private Policy.HealthLabel health() {
        return policy.get() == null ? Policy.DEFAULT_HEALTH_LABEL : policy.get().healthLabel();
    }
}
