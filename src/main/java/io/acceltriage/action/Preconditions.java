package io.acceltriage.action;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Optional;

/** The preconditions the mitigations share, each a small named class. */
final class Preconditions {

    private Preconditions() {}

    /** The node exists. */
    record NodeExists(KubernetesClient client) implements Precondition {
        public String name() {
            return "node-exists";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return client.nodes().withName(t.name()).get() == null
                    ? Optional.of("node " + t.name() + " does not exist (it may have been replaced)") : Optional.empty();
        }
    }

    /** Target is "namespace/name". */
    record NamespacedTarget() implements Precondition {
        public String name() {
            return "namespaced-target";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return t.namespace() == null || t.local().isEmpty()
                    ? Optional.of("the target must be namespace/name, got " + t.name()) : Optional.empty();
        }
    }

    /** The pod, if it still exists, has a controller that will recreate it: a bare pod would be lost. */
    record PodHasController(KubernetesClient client) implements Precondition {
        public String name() {
            return "pod-has-controller";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            if (t.namespace() == null) return Optional.of("the target must be namespace/name, got " + t.name());
            Pod pod = client.pods().inNamespace(t.namespace()).withName(t.local()).get();
            if (pod == null) return Optional.empty();
            var refs = pod.getMetadata().getOwnerReferences();
            return refs == null || refs.isEmpty()
                    ? Optional.of("pod " + t.name() + " has no controller: deleting it would lose it; escalate instead")
                    : Optional.empty();
        }
    }

    /** The node is not opted out at run time (a label added after the verdict still counts). */
    record NodeNotOptedOut(KubernetesClient client, String label) implements Precondition {
        public String name() {
            return "node-not-opted-out";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Node n = client.nodes().withName(t.name()).get();
            var labels = n == null ? null : n.getMetadata().getLabels();
            return labels != null && labels.containsKey(label) && !"false".equalsIgnoreCase(labels.get(label))
                    ? Optional.of("node " + t.name() + " now carries the opt-out label " + label) : Optional.empty();
        }
    }

    /** reset-gpu's target is NODE/GPU, the node exists and has a GPU of that index. */
    record GpuOfNode(KubernetesClient client) implements Precondition {
        public String name() {
            return "gpu-of-node";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Optional<ResetGpu.Device> d = ResetGpu.Device.parse(t.name());
            if (d.isEmpty()) return Optional.of("the target must be NODE/GPU (the GPU's index), got " + t.name());
            Node n = client.nodes().withName(d.get().node()).get();
            if (n == null) return Optional.of("node " + d.get().node() + " does not exist (it may have been replaced)");
            var capacity = n.getStatus() == null || n.getStatus().getCapacity() == null ? null
                    : n.getStatus().getCapacity().get(ResetGpu.GPU);
            int gpus = capacity == null ? 0 : capacity.getNumericalAmount().intValue();
            return d.get().index() < gpus ? Optional.empty()
                    : Optional.of("node " + d.get().node() + " has " + gpus + " GPUs; there is no GPU " + d.get().index());
        }
    }

    /** The node is cordoned: a node goes to repair, or comes back, only while nothing new can land on it. */
    record NodeFenced(KubernetesClient client) implements Precondition {
        public String name() {
            return "node-fenced";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Node n = client.nodes().withName(t.name()).get();
            if (n == null) return Optional.of("node " + t.name() + " does not exist (it may have been replaced)");
            return Pods.fenced(n) ? Optional.empty() : Optional.of("node " + t.name() + " is schedulable: cordon it first");
        }
    }
}
