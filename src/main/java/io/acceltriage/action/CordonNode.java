package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.function.Supplier;

/**
 * Marks a node unschedulable, and adds the policy's taint when it names one, so no new work lands on
 * a faulty accelerator. Idempotent; undone by uncordoning (and removing that taint).
 */
final class CordonNode implements Mitigation {

    private final KubernetesClient client;
    private final Supplier<Policy.Taint> taint;
    private final Timing timing;

    CordonNode(KubernetesClient client, Supplier<Policy.Taint> taint, Timing timing) {
        this.client = client;
        this.taint = taint;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.CORDON_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        String node = target.name();
        Node current = client.nodes().withName(node).get();
        if (current == null) {
            return Outcome.failed("node " + node + " does not exist", false);
        }
        Taint wanted = wantedTaint();
        if (Pods.fenced(current) && (wanted == null || hasTaint(current, wanted))) {
            return Outcome.done("node " + node + " was already cordoned");
        }
        var resource = client.nodes().withName(node);
        (dryRun ? resource.dryRun() : resource).edit(n -> {
            NodeBuilder b = new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec();
            if (wanted != null && !hasTaint(n, wanted)) {
                b.editSpec().addToTaints(wanted).endSpec();
            }
            return b.build();
        });
        String tainted = wanted == null ? "" : " and tainted " + wanted.getKey() + ":" + wanted.getEffect();
        return Outcome.done((dryRun ? "dry run: would cordon " : "cordoned ") + node + tainted);
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        boolean fenced = timing.until(timing.verifyTimeout(), () -> Pods.fenced(client.nodes().withName(target.name()).get()));
        return fenced ? Outcome.done("node " + target.name() + " is unschedulable")
                : Outcome.failed("node " + target.name() + " is still schedulable after cordoning: something uncordoned it", false);
    }

    @Override
    public boolean undoable() {
        return true;
    }

    @Override
    public Outcome undo(Mitigation.Target target) {
        return uncordon(client, target.name(), wantedTaint());
    }

    static Outcome uncordon(KubernetesClient client, String node, Taint ours) {
        if (client.nodes().withName(node).get() == null) {
            return Outcome.failed("node " + node + " does not exist", false);
        }
        client.nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n).editSpec().withUnschedulable(false).endSpec();
            if (ours != null && n.getSpec().getTaints() != null) {
                b.editSpec().withTaints(n.getSpec().getTaints().stream().filter(t -> !same(t, ours)).toList()).endSpec();
            }
            return b.build();
        });
        return Outcome.done("uncordoned " + node);
    }

    private Taint wantedTaint() {
        Policy.Taint t = taint.get();
        return t == null ? null : new TaintBuilder().withKey(t.key()).withValue(t.value())
                .withEffect(t.effect() == null ? "NoSchedule" : t.effect()).build();
    }

    private static boolean hasTaint(Node n, Taint t) {
        return n.getSpec().getTaints() != null && n.getSpec().getTaints().stream().anyMatch(x -> same(x, t));
    }

    private static boolean same(Taint a, Taint b) {
        return a.getKey().equals(b.getKey()) && a.getEffect().equals(b.getEffect());
    }
}
