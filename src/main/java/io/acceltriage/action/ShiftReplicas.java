package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Moves a serving replica off a fenced node: when a healthy node has room, scales the Deployment or
 * StatefulSet up by one first so the serving floor never dips; evicts the replica on the fenced node
 * (the Eviction API keeps the PodDisruptionBudget); verifies a replacement is Ready on another node;
 * scales back. The node must be fenced first (cordon-node runs before it), or the replacement could
 * land on the same broken hardware.
 */
final class ShiftReplicas implements Mitigation {

    private static final Set<String> ACCELERATORS = Set.of("nvidia.com/gpu", "google.com/tpu", "amd.com/gpu");

    private final KubernetesClient client;
    private final Timing timing;

    ShiftReplicas(KubernetesClient client, Timing timing) {
        this.client = client;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.SHIFT_REPLICAS;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NamespacedTarget(), new ServingWorkload(), new ReplicaOnFencedNode());
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Optional<HasMetadata> w = workload(target);
        if (w.isEmpty()) return Outcome.failed(target.name() + " is neither a Deployment nor a StatefulSet", false);
        List<Pod> stranded = stranded(w.get());
        if (stranded.isEmpty()) {
            return Outcome.done("no replica of " + target.name() + " is left on a fenced node");
        }
        int replicas = replicas(w.get());
        StringBuilder done = new StringBuilder(dryRun ? "dry run: " : "");
        boolean scaled = false;
        if (spareCapacity(stranded.get(0))) {
            scale(target, replicas + 1, dryRun);
            scaled = !dryRun;
            done.append("scaled ").append(target.name()).append(" to ").append(replicas + 1).append("; ");
            if (scaled && !timing.until(timing.scaleUpWait(), () -> readyElsewhere(w.get()) >= replicas)) {
                done.append("the extra replica was not Ready within ").append(timing.scaleUpWait().toSeconds())
                        .append(" s, the disruption budget guards the eviction; ");
            }
        }
        try {
            for (Pod p : stranded) {
                if (!Pods.evict(client, p, dryRun, timing)) {
                    return Outcome.failed(done + "the PodDisruptionBudget of " + target.name() + " still blocks evicting " + Pods.ref(p)
                            + " after " + timing.evictionTimeout().toSeconds() + " s", false);
                }
                done.append(dryRun ? "would evict " : "evicted ").append(Pods.ref(p)).append(" from ").append(p.getSpec().getNodeName());
            }
            if (scaled) {
                // Let the replacement come up before taking the extra replica away again.
                timing.until(timing.verifyTimeout(), () -> readyElsewhere(w.get()) >= replicas);
            }
        } finally {
            if (scaled) {
                scale(target, replicas, false);
                done.append("; scaled back to ").append(replicas);
            }
        }
        return Outcome.done(done.toString());
    }

    /** As many Ready replicas as the workload wants, none of them on a fenced node. */
    @Override
    public Outcome verify(Mitigation.Target target) {
        Optional<HasMetadata> w = workload(target);
        if (w.isEmpty()) return Outcome.failed(target.name() + " disappeared", false);
        int wanted = Math.min(replicas(w.get()), 1);
        boolean ok = timing.until(timing.verifyTimeout(), () -> stranded(w.get()).isEmpty() && readyElsewhere(w.get()) >= wanted);
        int ready = readyElsewhere(w.get());
        return ok ? Outcome.done(ready + " replicas of " + target.name() + " Ready on healthy nodes")
                : Outcome.failed("no replica of " + target.name() + " became Ready on another node within "
                        + timing.verifyTimeout().toSeconds() + " s (" + ready + " Ready off fenced nodes)", false);
    }

    private Optional<HasMetadata> workload(Mitigation.Target t) {
        if (t.namespace() == null) return Optional.empty();
        Deployment d = client.apps().deployments().inNamespace(t.namespace()).withName(t.local()).get();
        if (d != null) return Optional.of(d);
        return Optional.ofNullable(client.apps().statefulSets().inNamespace(t.namespace()).withName(t.local()).get());
    }

    private static int replicas(HasMetadata w) {
        Integer r = w instanceof Deployment d ? d.getSpec().getReplicas() : ((StatefulSet) w).getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    private List<Pod> pods(HasMetadata w) {
        Map<String, String> selector = w instanceof Deployment d ? d.getSpec().getSelector().getMatchLabels()
                : ((StatefulSet) w).getSpec().getSelector().getMatchLabels();
        return client.pods().inNamespace(w.getMetadata().getNamespace()).withLabels(selector).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private List<Pod> stranded(HasMetadata w) {
        return pods(w).stream().filter(p -> p.getSpec().getNodeName() != null)
                .filter(p -> Pods.fenced(client.nodes().withName(p.getSpec().getNodeName()).get())).toList();
    }

    private int readyElsewhere(HasMetadata w) {
        return (int) pods(w).stream().filter(Pods::ready).filter(p -> p.getSpec().getNodeName() != null)
                .filter(p -> !Pods.fenced(client.nodes().withName(p.getSpec().getNodeName()).get())).count();
    }

    /** Through the scale subresource: all the RBAC grants is {@code deployments/scale}, never the whole workload. */
    private void scale(Mitigation.Target t, int replicas, boolean dryRun) {
        io.fabric8.kubernetes.client.dsl.Scalable<?> workload = client.apps().deployments().inNamespace(t.namespace()).withName(t.local()).get() != null
                ? client.apps().deployments().inNamespace(t.namespace()).withName(t.local())
                : client.apps().statefulSets().inNamespace(t.namespace()).withName(t.local());
        if (dryRun) {
            workload.scale(); // reads the subresource: the access a real run needs, and nothing changes
        } else {
            workload.scale(replicas);
        }
    }

    /** A Ready, schedulable node of the replica's pool with free accelerators for one more replica. */
    private boolean spareCapacity(Pod replica) {
        Node home = client.nodes().withName(replica.getSpec().getNodeName()).get();
        String pool = home == null || home.getMetadata().getLabels() == null ? null : home.getMetadata().getLabels().get("acceltriage.io/pool");
        double wanted = 0;
        String resource = null;
        for (var c : replica.getSpec().getContainers()) {
            if (c.getResources() == null || c.getResources().getLimits() == null) continue;
            for (Map.Entry<String, Quantity> e : c.getResources().getLimits().entrySet()) {
                if (ACCELERATORS.contains(e.getKey())) {
                    resource = e.getKey();
                    wanted += e.getValue().getNumericalAmount().doubleValue();
                }
            }
        }
        for (Node n : client.nodes().list().getItems()) {
            if (Pods.fenced(n) || !Pods.nodeReady(n)) continue;
            if (pool != null && !pool.equals(n.getMetadata().getLabels().get("acceltriage.io/pool"))) continue;
            if (resource == null) return true;
            Quantity alloc = n.getStatus().getAllocatable() == null ? null : n.getStatus().getAllocatable().get(resource);
            if (alloc == null) continue;
            double used = 0;
            for (Pod p : Pods.onNode(client, n.getMetadata().getName())) {
                for (var c : p.getSpec().getContainers()) {
                    if (c.getResources() != null && c.getResources().getLimits() != null && c.getResources().getLimits().get(resource) != null) {
                        used += c.getResources().getLimits().get(resource).getNumericalAmount().doubleValue();
                    }
                }
            }
            if (alloc.getNumericalAmount().doubleValue() - used >= wanted) return true;
        }
        return false;
    }

    private final class ServingWorkload implements Precondition {
        public String name() {
            return "serving-workload";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return workload(t).isPresent() ? Optional.empty()
                    : Optional.of(t.name() + " is neither a Deployment nor a StatefulSet: there are no replicas to shift");
        }
    }

    /** The bad node is fenced: otherwise the replacement could land right back on it. */
    private final class ReplicaOnFencedNode implements Precondition {
        public String name() {
            return "replica-on-fenced-node";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Optional<HasMetadata> w = workload(t);
            if (w.isEmpty()) return Optional.empty();
            return stranded(w.get()).isEmpty()
                    ? Optional.of("no replica of " + t.name() + " sits on a cordoned node: fence the bad node first (cordon-node)")
                    : Optional.empty();
        }
    }
}
