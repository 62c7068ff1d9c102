package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Optional;

/**
 * Holds a node-agent rollout that a fleet-wide fault follows: switches the DaemonSet's update
 * strategy to {@code OnDelete}, so no further node gets the new revision while people look, and keeps
 * the old strategy in an annotation; nodes already updated stay as they are (rolling them back is a
 * person's call). Undone by restoring the old strategy, which lets the rollout continue.
 */
final class PauseRollout implements Mitigation {

    /** The strategy the DaemonSet had before the pause, as the API serialises it. */
    static final String PAUSED_FROM = "acceltriage.io/paused-update-strategy";
    static final String ON_DELETE = "OnDelete";

    private final KubernetesClient client;
    private final Timing timing;

    PauseRollout(KubernetesClient client, Timing timing) {
        this.client = client;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.PAUSE_ROLLOUT;
    }

    @Override
    public String capture(String target) {
        Mitigation.Target t = new Mitigation.Target(target, null);
        return t.namespace() == null ? null : daemonSet(t).map(d -> d.getMetadata().getUid()).orElse(null);
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NamespacedTarget(), new DaemonSetExists());
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Optional<DaemonSet> found = daemonSet(target);
        if (found.isEmpty()) return Outcome.failed("DaemonSet " + target.name() + " does not exist", false);
        DaemonSet ds = found.get();
        if (paused(ds)) {
            return Outcome.done("the rollout of DaemonSet " + target.name() + " is already paused (updateStrategy OnDelete)");
        }
        String old = Serialization.asJson(strategyOf(ds));
        var resource = client.apps().daemonSets().inNamespace(target.namespace()).withName(target.local());
        (dryRun ? resource.dryRun() : resource).edit(d -> new DaemonSetBuilder(d)
                .editMetadata().addToAnnotations(PAUSED_FROM, old).endMetadata()
                .editSpec().withUpdateStrategy(new DaemonSetUpdateStrategyBuilder().withType(ON_DELETE).build()).endSpec()
                .build());
        return Outcome.done((dryRun ? "dry run: would pause " : "paused ") + "the rollout of DaemonSet " + target.name()
                + ": updateStrategy " + strategyOf(ds).getType() + " → OnDelete (nodes already updated keep the new revision)");
    }

    /** Read back: the strategy is OnDelete, so the controller replaces no more pods on its own. */
    @Override
    public Outcome verify(Mitigation.Target target) {
        boolean held = timing.until(timing.verifyTimeout(), () -> daemonSet(target).filter(PauseRollout::paused).isPresent());
        return held ? Outcome.done("DaemonSet " + target.name() + " has updateStrategy OnDelete: its rollout goes no further")
                : Outcome.failed("DaemonSet " + target.name() + " does not keep updateStrategy OnDelete: an operator (the GPU"
                        + " operator's ClusterPolicy, a GitOps sync) may own it; pause the rollout there", false);
    }

    @Override
    public boolean undoable() {
        return true;
    }

    @Override
    public Outcome undo(Mitigation.Target target) {
        Optional<DaemonSet> found = daemonSet(target);
        if (found.isEmpty()) return Outcome.failed("DaemonSet " + target.name() + " does not exist", false);
        String old = found.get().getMetadata().getAnnotations() == null ? null : found.get().getMetadata().getAnnotations().get(PAUSED_FROM);
        if (old == null) {
            return Outcome.failed("DaemonSet " + target.name() + " carries no " + PAUSED_FROM + " annotation: acceltriage did not"
                    + " pause it, or someone resumed it already; set its updateStrategy by hand", false);
        }
        DaemonSetUpdateStrategy restored = Serialization.unmarshal(old, DaemonSetUpdateStrategy.class);
        client.apps().daemonSets().inNamespace(target.namespace()).withName(target.local()).edit(d -> new DaemonSetBuilder(d)
                .editMetadata().removeFromAnnotations(PAUSED_FROM).endMetadata()
                .editSpec().withUpdateStrategy(restored).endSpec()
                .build());
        boolean back = timing.until(timing.verifyTimeout(), () -> daemonSet(target)
                .filter(d -> restored.getType().equals(strategyOf(d).getType())).isPresent());
        return back ? Outcome.done("resumed the rollout of DaemonSet " + target.name() + ": updateStrategy " + restored.getType())
                : Outcome.failed("DaemonSet " + target.name() + " did not take back updateStrategy " + restored.getType(), false);
    }

    private Optional<DaemonSet> daemonSet(Mitigation.Target t) {
        if (t.namespace() == null) return Optional.empty();
        return Optional.ofNullable(client.apps().daemonSets().inNamespace(t.namespace()).withName(t.local()).get());
    }

    private static boolean paused(DaemonSet d) {
        return ON_DELETE.equals(strategyOf(d).getType());
    }

    /** The API server defaults a DaemonSet to RollingUpdate; an object read without it means the same. */
    private static DaemonSetUpdateStrategy strategyOf(DaemonSet d) {
        DaemonSetUpdateStrategy s = d.getSpec() == null ? null : d.getSpec().getUpdateStrategy();
        return s == null || s.getType() == null ? new DaemonSetUpdateStrategyBuilder().withType("RollingUpdate").build() : s;
    }

    private final class DaemonSetExists implements Precondition {
        public String name() {
            return "daemonset-exists";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return daemonSet(t).isPresent() ? Optional.empty()
                    : Optional.of("DaemonSet " + t.name() + " does not exist: there is no rollout to pause");
        }
    }
}
