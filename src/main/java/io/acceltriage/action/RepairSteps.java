package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The way back from repair runs in order, each step on its own: {@code reboot-node} or {@code replace-node}, then
 * {@code validate-node} once the repairer answered, then {@code return-node} once the validation passed
 * (once the repairer answered, where no validation was proposed). A later step proposed with the
 * first one waits: allowed, it stays PLANNED until the step before it completes; awaiting approval, its
 * approval window starts only then (and an early approval is kept until then). A step whose step before
 * it did not complete (rejected, failed, expired) never runs.
 */
final class RepairSteps {

    enum Readiness { READY, WAITING, NEVER }

    record State(Readiness readiness, String why) {
        boolean ready() {
            return readiness == Readiness.READY;
        }
    }

    private static final State FREE = new State(Readiness.READY, "no step before it");

    private final KubernetesClient client;
    private final ActionStore store;
    private final Supplier<Policy> policy;

    RepairSteps(KubernetesClient client, ActionStore store, Supplier<Policy> policy) {
        this.client = client;
        this.store = store;
        this.policy = policy;
    }

    static boolean follows(ActionKind k) {
        return k == ActionKind.VALIDATE_NODE || k == ActionKind.RETURN_NODE;
    }

    State of(ActionRecord r) {
        if (r.kind() == ActionKind.DRAIN_NODE && r.atCheckpoint()) return afterGangRestarts(r);
        if (!follows(r.kind())) return FREE;
        List<ActionRecord> incident = store.ofIncident(r.incidentId());
        Optional<ActionRecord> before = (r.kind() == ActionKind.RETURN_NODE ? step(incident, ActionKind.VALIDATE_NODE, r) : Optional.<ActionRecord>empty())
                .or(() -> handOver(incident, r));
        if (before.isEmpty()) return FREE;
        ActionRecord b = before.get();
        String it = b.kind().wireName() + " " + b.target();
        switch (b.status()) {
            case SUCCEEDED:
                // replace-node waited for its replacement itself; a reboot is over when the repairer says so
                if (b.kind() != ActionKind.REPAIR_NODE) return new State(Readiness.READY, it + " passed");
                Optional<String> held = withRepair(b.target());
                return held.map(why -> new State(Readiness.WAITING, why))
                        .orElse(new State(Readiness.READY, "the repairer answered for " + b.target()));
            case DRY_RUN:
                return new State(Readiness.READY, it + " ran as a dry run");
            case PLANNED:
            case AWAITING_APPROVAL:
                return new State(Readiness.WAITING, it + " has not run yet");
            case VERIFYING:
                return new State(Readiness.WAITING, it + " ran and is being checked");
            default:
                return new State(Readiness.NEVER, it + " is " + b.status().name().toLowerCase() + ", so this step does not run");
        }
    }

    /**
     * A drain at a checkpoint comes with the whole restart of each checkpointing gang on the node (same incident,
     * at the same checkpoint): it runs after them, so it never evicts part of a gang, and not at all when a restart
     * was rejected or failed (emptying the node would then stop part of that gang: a person drains it). Its approval
     * is asked for at once, with the restarts'; it is not a later step whose approval window waits.
     */
    private State afterGangRestarts(ActionRecord drain) {
        for (ActionRecord b : store.ofIncident(drain.incidentId())) {
            if (b.kind() != ActionKind.RESTART_GROUP || !b.atCheckpoint()) continue;
            String it = b.kind().wireName() + " " + b.target();
            switch (b.status()) {
                case SUCCEEDED, DRY_RUN -> { }
                case PLANNED, AWAITING_APPROVAL, VERIFYING -> {
                    return new State(Readiness.WAITING, it + " has not " + (b.status() == ActionStatus.VERIFYING ? "been checked" : "run")
                            + " yet: the node is drained once the gang restarted whole");
                }
                default -> {
                    return new State(Readiness.NEVER, it + " is " + b.status().name().toLowerCase()
                            + ", so the drain would stop part of that gang: a person drains the node");
                }
            }
        }
        return FREE;
    }

    /** The hand-over to repair this step follows: a reboot or a replacement of the same node. */
    private static Optional<ActionRecord> handOver(List<ActionRecord> incident, ActionRecord of) {
        return step(incident, ActionKind.REPAIR_NODE, of).or(() -> step(incident, ActionKind.REPLACE_NODE, of));
    }

    /**
     * What a step acts on: its target, or, after a replace-node of that node succeeded, the replacement
     * that joined in its place (validate-node and return-node are proposed before anyone knows its name).
     */
    Mitigation.Target target(ActionRecord r) {
        Mitigation.Target as = new Mitigation.Target(r.target(), r.subjectUid());
        if (!follows(r.kind())) return as;
        boolean replaced = store.ofIncident(r.incidentId()).stream().anyMatch(a -> a.kind() == ActionKind.REPLACE_NODE
                && a.target().equals(r.target()) && a.status() == ActionStatus.SUCCEEDED);
        if (!replaced) return as;
        return Repairers.standingFor(client, r.target()).map(n -> new Mitigation.Target(n.getMetadata().getName(), r.subjectUid()))
                .orElse(as);
    }

    private static Optional<ActionRecord> step(List<ActionRecord> incident, ActionKind kind, ActionRecord of) {
        return incident.stream().filter(a -> a.kind() == kind && a.target().equals(of.target()) && !a.id().equals(of.id())).findFirst();
    }

    /** Why the node is still with its repairer; empty once it answered (or is gone, which a later step reports). */
    private Optional<String> withRepair(String node) {
        Node n = client.nodes().withName(node).get();
        if (n == null) return Optional.empty();
        return RepairNode.stillWithRepair(client, policy.get(), n);
    }

    /**
     * An approval that waited for the step before it is marked ready by an update of its row (its
     * {@code updatedAt} moves past {@code createdAt}); its approval window counts from then.
     */
    static boolean markedReady(ActionRecord r) {
        return r.updatedAt() != null && r.createdAt() != null && r.updatedAt().isAfter(r.createdAt());
    }
}
