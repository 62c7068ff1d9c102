package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Cordons a node, then evicts its pods through the Eviction API so PodDisruptionBudgets hold.
 * DaemonSet and mirror pods stay (their controllers would put them straight back). A budget that
 * answers 429 is retried until the eviction timeout; pods still there then are named in the failure.
 */
final class DrainNode implements Mitigation {

    private final KubernetesClient client;
    private final CordonNode cordon;
    private final Timing timing;

    DrainNode(KubernetesClient client, Supplier<Policy.Taint> taint, Timing timing) {
        this.client = client;
        this.cordon = new CordonNode(client, taint, timing);
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.DRAIN_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Outcome cordoned = cordon.apply(target, dryRun);
        if (!cordoned.success()) return cordoned;
        List<String> evicted = new ArrayList<>();
        List<String> blocked = new ArrayList<>();
        for (Pod p : evictable(target.name())) {
            if (Pods.evict(client, p, dryRun, timing)) {
                evicted.add(Pods.ref(p));
            } else {
                blocked.add(Pods.ref(p));
            }
        }
        String what = (dryRun ? "dry run: " : "") + cordoned.detail() + "; " + (dryRun ? "would evict " : "evicted ")
                + (evicted.isEmpty() ? "no pods" : String.join(", ", evicted));
        if (!blocked.isEmpty()) {
            return Outcome.failed(what + "; PodDisruptionBudgets still block " + String.join(", ", blocked) + " after "
                    + timing.evictionTimeout().toSeconds() + " s: a person decides whether to wait or force", false);
        }
        return Outcome.done(what);
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        boolean empty = timing.until(timing.verifyTimeout(), () -> Pods.fenced(client.nodes().withName(target.name()).get())
                && evictable(target.name()).stream().allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
        return empty ? Outcome.done("node " + target.name() + " is cordoned and holds only DaemonSet pods")
                : Outcome.failed("node " + target.name() + " still runs workload pods: " + evictable(target.name()).stream()
                        .map(Pods::ref).toList(), false);
    }

    @Override
    public boolean undoable() {
        return true;
    }

    /** Evicted pods are not brought back; the node is opened to new work again. */
    @Override
    public Outcome undo(Mitigation.Target target) {
        return cordon.undo(target);
    }

    private List<Pod> evictable(String node) {
        return Pods.onNode(client, node).stream().filter(p -> !Pods.ownedByDaemonSet(p) && !Pods.mirror(p))
                .filter(p -> !"Succeeded".equals(p.getStatus() == null ? null : p.getStatus().getPhase())
                        && !"Failed".equals(p.getStatus() == null ? null : p.getStatus().getPhase()))
                .toList();
    }
}
