package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Marks a node unschedulable so no new work lands on a faulty accelerator. Idempotent. */
final class CordonNode implements Mitigation {

    private final KubernetesClient client;

    CordonNode(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.CORDON_NODE;
    }

    @Override
    public Outcome apply(String node, boolean dryRun) {
        Node current = client.nodes().withName(node).get();
        if (current == null) {
            return Outcome.failed("node " + node + " does not exist", false);
        }
        if (Boolean.TRUE.equals(current.getSpec().getUnschedulable())) {
            return Outcome.done("node " + node + " was already cordoned");
        }
        var resource = client.nodes().withName(node);
        (dryRun ? resource.dryRun() : resource).edit(n -> {
            n.getSpec().setUnschedulable(true);
            return n;
        });
        return Outcome.done((dryRun ? "dry run: would cordon " : "cordoned ") + node);
    }
}
