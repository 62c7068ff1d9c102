package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * {@code replace-node}: hands a node to its pool's repairer to be replaced (Karpenter deletes its NodeClaim,
 * Cluster API's MachineSet replaces its Machine, a handshake repairer or a medik8s MachineDeletionRemediation
 * does the same; see {@link Repairers}), after draining it, and waits ({@code repair.replaceTimeout}) for a
 * new node to join the same pool. The replacement is cordoned the moment it is seen, so nothing lands on it
 * before {@code validate-node} passes, and carries {@value Repairers#REPLACES} naming the node it stands for:
 * the {@code validate-node} and {@code return-node} proposed for the old node act on it (see {@link RepairSteps#target}).
 * A pool whose new nodes start with a taint (Karpenter's NodePool {@code startupTaints}, a Cluster API template's
 * taints) closes the moment between joining and that cordon.
 */
final class ReplaceNode implements Mitigation {

    private final KubernetesClient client;
    private final DrainNode drain;
    private final CordonNode cordon;
    private final Supplier<Policy> policy;
    private final List<String> poolLabels;
    private final Timing timing;

    ReplaceNode(KubernetesClient client, Supplier<Policy.Taint> taint, Supplier<Policy> policy, List<String> poolLabels, Timing timing) {
        this.client = client;
        this.drain = new DrainNode(client, taint, timing);
        this.cordon = new CordonNode(client, taint, timing);
        this.policy = policy;
        this.poolLabels = poolLabels;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.REPLACE_NODE;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client), new InAPool(client, poolLabels),
                new RepairNode.ProtocolCan(client, policy, poolLabels, Repairers.Asked.REPLACE));
    }

    /** The node names its pool: a replacement is recognised by joining the same pool. */
    record InAPool(KubernetesClient client, List<String> poolLabels) implements Precondition {
        public String name() {
            return "in-a-pool";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Node n = client.nodes().withName(t.name()).get();
            return n == null || Repairers.pool(n, poolLabels) != null ? Optional.empty()
                    : Optional.of("node " + t.name() + " carries none of the pool labels " + poolLabels
                            + ": its replacement could not be recognised");
        }
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Node old = client.nodes().withName(target.name()).get();
        if (old == null) return Outcome.failed("node " + target.name() + " does not exist", false);
        String pool = Repairers.pool(old, poolLabels);
        Set<String> before = members(pool).stream().map(n -> n.getMetadata().getUid()).collect(Collectors.toSet());
        Instant asked = Instant.now();
        Outcome handed = RepairNode.handOver(client, drain, policy.get(), poolLabels, target, dryRun, Repairers.Asked.REPLACE);
        if (!handed.success() || dryRun) return handed;
        Duration wait = policy.get() == null ? Duration.ofMinutes(30) : policy.get().replaceTimeout();
        Node[] joined = new Node[1];
        boolean arrived = timing.until(wait, () -> {
            joined[0] = members(pool).stream().filter(n -> !before.contains(n.getMetadata().getUid())).findFirst().orElse(null);
            return joined[0] != null;
        });
        if (!arrived) {
            return Outcome.failed(handed.detail() + "; no new node joined pool " + pool + " within " + wait.toMinutes()
                    + " min: look at the repairer (and the pool's capacity)", false);
        }
        String replacement = joined[0].getMetadata().getName();
        Outcome fenced = cordon.apply(new Mitigation.Target(replacement, null), false);
        client.nodes().withName(replacement).edit(n -> new NodeBuilder(n).editMetadata()
                .addToAnnotations(Repairers.REPLACES, target.name()).addToAnnotations(RepairNode.REQUESTED_AT, asked.toString())
                .endMetadata().build());
        return Outcome.done(handed.detail() + "; " + replacement + " joined pool " + pool + " in place of " + target.name() + "; "
                + fenced.detail() + " until validate-node passes");
    }

    /** The replacement stands for the old node, fenced until it is validated and returned. */
    @Override
    public Outcome verify(Mitigation.Target target) {
        Optional<Node> standing = Repairers.standingFor(client, target.name())
                .filter(n -> target.name().equals(RepairNode.annotations(n).get(Repairers.REPLACES)));
        if (standing.isEmpty()) return Outcome.failed("no node carries " + Repairers.REPLACES + "=" + target.name(), false);
        return Pods.fenced(standing.get())
                ? Outcome.done(standing.get().getMetadata().getName() + " stands for " + target.name() + ", fenced until validated")
                : Outcome.failed(standing.get().getMetadata().getName() + " was uncordoned before its validation", false);
    }

    private List<Node> members(String pool) {
        return client.nodes().list().getItems().stream().filter(n -> pool.equals(Repairers.pool(n, poolLabels))).toList();
    }
}
