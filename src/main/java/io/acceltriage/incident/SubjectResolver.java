package io.acceltriage.incident;

import io.acceltriage.evidence.OwnerKinds;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Works out what an alert is about: its labels first, then the cluster (read-only) for what labels
 * do not say — a pod's node and its top-level owner, and the gangs that run on an alerted node. A gang
 * (JobSet, PyTorchJob, LeaderWorkerSet, an indexed parallel Job…) becomes the subject of its members'
 * alerts, so a fault that stalls every worker is one incident. An API server that cannot answer only
 * narrows correlation to what the labels say; it never loses the alert.
 */
public final class SubjectResolver {

    private static final int MAX_OWNER_DEPTH = 4;

    private final KubernetesClient client;

    /** {@code client} may be null: correlation then reads labels only. */
    public SubjectResolver(KubernetesClient client) {
        this.client = client;
    }

    public About resolve(Alert alert) {
        Subject subject = Correlator.subjectOf(alert);
        String node = Correlator.nodeOf(alert);
        Set<String> keys = new LinkedHashSet<>();
        keys.add(subject.key());
        String namespace = alert.label("namespace");
        String podName = alert.label("pod");
        if (subject.kind() == Subject.Kind.WORKLOAD) {
            String[] kindName = subject.name().split("/", 2);
            String kind = normalKind(kindName[0]);
            keys.add(About.workloadKey(subject.namespace(), kind, kindName[1]));
            // A Job named by its label may be one replicated job of a JobSet: the gang is the subject.
            if ("job".equals(kind)) {
                String ns = subject.namespace();
                Job job = get(() -> client.batch().v1().jobs().inNamespace(ns).withName(kindName[1]).get());
                Owner top = job == null ? null : topOwner(job);
                if (top != null && top.gang()) {
                    keys.add(top.key());
                    subject = new Subject(Subject.Kind.WORKLOAD, subject.namespace(), top.kind().toLowerCase(Locale.ROOT) + "/" + top.name());
                    keys.add(subject.key());
                }
            }
        }
        if (namespace != null && podName != null) {
            keys.add(About.podKey(namespace, podName));
            Pod pod = get(() -> client.pods().inNamespace(namespace).withName(podName).get());
            if (pod != null) {
                if (node == null && pod.getSpec() != null) node = pod.getSpec().getNodeName();
                Owner top = topOwner(pod);
                if (top != null && !"DaemonSet".equals(top.kind())) {
                    keys.add(top.key());
                    if (top.gang() && subject.kind() == Subject.Kind.POD) {
                        subject = new Subject(Subject.Kind.WORKLOAD, namespace, top.kind().toLowerCase(Locale.ROOT) + "/" + top.name());
                        keys.add(subject.key());
                    }
                }
            }
        }
        if (node != null) {
            keys.add(About.nodeKey(node));
            if (subject.kind() == Subject.Kind.NODE) {
                keys.addAll(gangsOn(node));
            }
        }
        return new About(subject, node, keys);
    }

    /** Workload keys of the gangs with a member on the node: a device fault there stalls all of them. */
    private Set<String> gangsOn(String node) {
        Set<String> out = new LinkedHashSet<>();
        List<Pod> pods = get(() -> client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems());
        if (pods == null) return out;
        for (Pod p : pods) {
            if (p.getSpec() == null || !node.equals(p.getSpec().getNodeName())) continue;
            Owner top = topOwner(p);
            if (top != null && top.gang()) out.add(top.key());
        }
        return out;
    }

    private record Owner(String kind, String namespace, String name, boolean gang) {
        String key() {
            return About.workloadKey(namespace, kind.toLowerCase(Locale.ROOT), name);
        }
    }

    private Owner topOwner(HasMetadata object) {
        String ns = object.getMetadata().getNamespace();
        OwnerReference ref = controllerOf(object);
        if (ref == null) return null;
        for (int depth = 0; ; depth++) {
            HasMetadata owner = depth < MAX_OWNER_DEPTH ? fetch(ns, ref) : null;
            OwnerReference parent = owner == null ? null : controllerOf(owner);
            if (parent == null) {
                boolean gang = OwnerKinds.GANG_KINDS.contains(ref.getKind())
                        || owner instanceof Job j && j.getSpec() != null && "Indexed".equals(j.getSpec().getCompletionMode())
                                && j.getSpec().getParallelism() != null && j.getSpec().getParallelism() > 1;
                return new Owner(ref.getKind(), ns, ref.getName(), gang);
            }
            ref = parent;
        }
    }

    private HasMetadata fetch(String ns, OwnerReference ref) {
        String name = ref.getName();
        return switch (ref.getKind()) {
            case "ReplicaSet" -> get(() -> client.apps().replicaSets().inNamespace(ns).withName(name).get());
            case "Job" -> get(() -> client.batch().v1().jobs().inNamespace(ns).withName(name).get());
            case "StatefulSet" -> get(() -> client.apps().statefulSets().inNamespace(ns).withName(name).get());
            default -> {
                ResourceDefinitionContext ctx = OwnerKinds.CUSTOM.get(ref.getKind());
                yield ctx == null ? null : get(() -> client.genericKubernetesResources(ctx).inNamespace(ns).withName(name).get());
            }
        };
    }

    private static OwnerReference controllerOf(HasMetadata o) {
        List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
        if (refs == null || refs.isEmpty()) return null;
        return refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst().orElse(refs.get(0));
    }

    /** Labels name workloads a little differently from owner kinds: one spelling for both. */
    private static String normalKind(String label) {
        return switch (label) {
            case "job_name" -> "job";
            default -> label.toLowerCase(Locale.ROOT);
        };
    }

    private <T> T get(java.util.function.Supplier<T> read) {
        if (client == null) return null;
        try {
            return read.get();
        } catch (KubernetesClientException e) {
            return null; // correlation falls back to what the labels say; triage reports the API's state
        }
    }
}
