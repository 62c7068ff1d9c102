package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deletes a pod so its controller recreates it. Only pods with a controller: a bare pod would be
 * lost. The pod's uid is recorded when the action is planned; if the pod now has another uid, the
 * restart already happened (before a crash, or by someone else) and nothing is deleted again.
 */
final class RestartPod implements Mitigation {

    private final KubernetesClient client;
    private final Timing timing;
    /** The controller of each pod this process deleted, to find its replacement when verifying. */
    private final Map<String, OwnerReference> controllers = new ConcurrentHashMap<>();

    RestartPod(KubernetesClient client, Timing timing) {
        this.client = client;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RESTART_POD;
    }

    @Override
    public String capture(String target) {
        Mitigation.Target t = new Mitigation.Target(target, null);
        if (t.namespace() == null) return null;
        Pod pod = client.pods().inNamespace(t.namespace()).withName(t.local()).get();
        return pod == null ? null : pod.getMetadata().getUid();
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NamespacedTarget(), new Preconditions.PodHasController(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Pod pod = client.pods().inNamespace(target.namespace()).withName(target.local()).get();
        if (pod == null) {
            return Outcome.done("pod " + target.name() + " is already gone");
        }
        if (target.subjectUid() == null) {
            // Planned while the pod could not be read: after a crash this pod may already be the
            // replacement, and deleting it would restart the workload twice. A person decides.
            return Outcome.failed("pod " + target.name() + " could not be read when the restart was planned, so this pod"
                    + " cannot be told from a replacement; nothing deleted: restart it by hand if it still needs it", false);
        }
        if (!target.subjectUid().equals(pod.getMetadata().getUid())) {
            return Outcome.done("pod " + target.name() + " was already restarted (uid " + pod.getMetadata().getUid()
                    + ", planned for " + target.subjectUid() + "): nothing deleted again");
        }
        OwnerReference controller = io.acceltriage.cluster.Owners.controllerOf(pod);
        if (controller == null) {
            return Outcome.failed("pod " + target.name() + " has no controller: deleting it would lose it; escalate instead", false);
        }
        var resource = client.pods().inNamespace(target.namespace()).withName(target.local());
        (dryRun ? resource.dryRun() : resource).delete();
        if (!dryRun) controllers.put(target.name(), controller);
        return Outcome.done((dryRun ? "dry run: would delete " : "deleted ") + "pod " + target.name() + " for its controller to recreate");
    }

    /** The old pod is gone and its controller has a pod in its place. */
    @Override
    public Outcome verify(Mitigation.Target target) {
        OwnerReference controller = controllers.remove(target.name());
        String oldUid = target.subjectUid();
        boolean replaced = timing.until(timing.verifyTimeout(), () -> {
            Pod same = client.pods().inNamespace(target.namespace()).withName(target.local()).get();
            if (same != null && (oldUid == null || oldUid.equals(same.getMetadata().getUid()))
                    && same.getMetadata().getDeletionTimestamp() == null) {
                return false;
            }
            if (controller == null) return true;
            return client.pods().inNamespace(target.namespace()).list().getItems().stream()
                    .anyMatch(p -> !p.getMetadata().getUid().equals(oldUid) && p.getMetadata().getOwnerReferences() != null
                            && p.getMetadata().getOwnerReferences().stream().anyMatch(r -> r.getUid() != null && r.getUid().equals(controller.getUid())));
        });
        return replaced ? Outcome.done("pod " + target.name() + " was replaced by its controller")
                : Outcome.failed("no replacement for pod " + target.name() + " appeared within " + timing.verifyTimeout().toSeconds()
                        + " s: check its controller", false);
    }
}
