package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Deletes a pod so its controller recreates it. Only pods with a controller: a bare pod would be lost. */
final class RestartPod implements Mitigation {

    private final KubernetesClient client;

    RestartPod(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RESTART_POD;
    }

    @Override
    public Outcome apply(String target, boolean dryRun) {
        String[] ref = target.split("/", 2);
        if (ref.length != 2) {
            return Outcome.failed("restart-pod needs namespace/name, got " + target, false);
        }
        Pod pod = client.pods().inNamespace(ref[0]).withName(ref[1]).get();
        if (pod == null) {
            return Outcome.done("pod " + target + " is already gone");
        }
        if (pod.getMetadata().getOwnerReferences() == null || pod.getMetadata().getOwnerReferences().isEmpty()) {
            return Outcome.failed("pod " + target + " has no controller: deleting it would lose it; escalate instead", false);
        }
        var resource = client.pods().inNamespace(ref[0]).withName(ref[1]);
        (dryRun ? resource.dryRun() : resource).delete();
        return Outcome.done((dryRun ? "dry run: would delete " : "deleted ") + "pod " + target + " for its controller to recreate");
    }
}
