package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The one owner-chain walker: follows controller references up to the top-level workload (Pod →
 * ReplicaSet → Deployment, Pod → Job → JobSet, …), finds workloads by name, and knows which kinds run
 * as gangs. Correlation, evidence, policy, the mitigations and capture all walk through it. An owner
 * that cannot be read (a CRD not installed, RBAC) is still named by the reference that points at it.
 */
public final class Owners {

    /** Kinds whose pods run as one gang: restarted whole or not at all. */
    public static final Set<String> GANG_KINDS = Set.of("JobSet", "PyTorchJob", "LeaderWorkerSet", "MPIJob", "TFJob",
            "XGBoostJob", "JAXJob", "PaddleJob", "TrainJob", "RayJob");

    /** Deeper chains than this are not workloads people run; the walk stops and names what it reached. */
    private static final int MAX_DEPTH = 5;

    private static final List<String> WORKLOAD_KINDS = List.of("Deployment", "StatefulSet", "JobSet", "PyTorchJob",
            "LeaderWorkerSet", "Job");

    /** Blocking reads, so not the common pool (one thread on two cores); idle threads go away. */
    private static final ExecutorService PROBES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "acceltriage-owner-probe");
        t.setDaemon(true);
        return t;
    });

    /** Custom workload kinds read by name. */
    public static final Map<String, ResourceDefinitionContext> CUSTOM = Map.of(
            "JobSet", ctx("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"),
            "LeaderWorkerSet", ctx("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet"),
            "PyTorchJob", ctx("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob"));

    /** A top-level workload; {@code object} is null when it could not be read. */
    public record Top(String kind, String namespace, String name, boolean gang, HasMetadata object) {}

    /** How a fetch is made: straight to the cluster, or through a caller's memo of one decision. */
    public interface Fetcher {
        HasMetadata fetch(String kind, String ns, String name, java.util.function.Supplier<HasMetadata> read);
    }

    private final KubernetesClient client;
    private final Fetcher fetcher;

    public Owners(KubernetesClient client) {
        this(client, (kind, ns, name, read) -> read.get());
    }

    /** Walks through {@code reads}: a watched view answers from what it holds. */
    public Owners(ClusterReads reads) {
        this(reads.client(), reads::owner);
    }

    public Owners(KubernetesClient client, Fetcher fetcher) {
        this.client = client;
        this.fetcher = fetcher;
    }

    /** The top-level workload of an object, null when nothing owns it. */
    public Top topOf(HasMetadata object) {
        OwnerReference ref = controllerOf(object);
        return ref == null ? null : topOfRef(object.getMetadata().getNamespace(), ref);
    }

    /** The top-level workload at the end of the chain that starts with {@code ref}. */
    public Top topOfRef(String ns, OwnerReference ref) {
        for (int depth = 0; depth < MAX_DEPTH; depth++) {
            HasMetadata o = fetch(ns, ref.getKind(), ref.getName());
            OwnerReference parent = o == null ? null : controllerOf(o);
            if (parent == null) {
                return new Top(ref.getKind(), ns, ref.getName(), gang(ref.getKind(), o), o);
            }
            ref = parent;
        }
        return null;
    }

    /**
     * A workload named by a proposal: tries the kinds a workload action can target, all at once (on a
     * slow API server one round trip instead of six), and takes the first in this order that exists.
     */
    public Top byName(String ns, String name) {
        List<CompletableFuture<HasMetadata>> probes = WORKLOAD_KINDS.stream()
                .map(kind -> CompletableFuture.supplyAsync(() -> fetch(ns, kind, name), PROBES)).toList();
        for (int i = 0; i < WORKLOAD_KINDS.size(); i++) {
            String kind = WORKLOAD_KINDS.get(i);
            HasMetadata o = probes.get(i).join();
            if (o != null) {
                OwnerReference parent = controllerOf(o);
                if (parent != null && !"Job".equals(kind)) continue;
                return parent != null ? topOfObject(ns, parent) : new Top(kind, ns, name, gang(kind, o), o);
            }
        }
        return null;
    }

    /** The owners that could be read, nearest first (what a capture must include to replay the chain). */
    public List<HasMetadata> chainOf(HasMetadata object) {
        List<HasMetadata> chain = new java.util.ArrayList<>();
        HasMetadata current = object;
        for (int depth = 0; depth < MAX_DEPTH - 1; depth++) {
            OwnerReference ref = controllerOf(current);
            if (ref == null) break;
            HasMetadata owner = fetch(object.getMetadata().getNamespace(), ref.getKind(), ref.getName());
            if (owner == null) break;
            chain.add(owner);
            current = owner;
        }
        return chain;
    }

    private Top topOfObject(String ns, OwnerReference ref) {
        HasMetadata o = fetch(ns, ref.getKind(), ref.getName());
        return new Top(ref.getKind(), ns, ref.getName(), gang(ref.getKind(), o), o);
    }

    public HasMetadata fetch(String ns, String kind, String name) {
        return fetcher.fetch(kind, ns, name, () -> read(ns, kind, name));
    }

    private HasMetadata read(String ns, String kind, String name) {
        try {
            return switch (kind) {
                case "ReplicaSet" -> client.apps().replicaSets().inNamespace(ns).withName(name).get();
                case "Deployment" -> client.apps().deployments().inNamespace(ns).withName(name).get();
                case "StatefulSet" -> client.apps().statefulSets().inNamespace(ns).withName(name).get();
                case "DaemonSet" -> client.apps().daemonSets().inNamespace(ns).withName(name).get();
                case "Job" -> client.batch().v1().jobs().inNamespace(ns).withName(name).get();
                case "Pod" -> client.pods().inNamespace(ns).withName(name).get();
                default -> {
                    ResourceDefinitionContext ctx = CUSTOM.get(kind);
                    GenericKubernetesResource r = ctx == null ? null
                            : client.genericKubernetesResources(ctx).inNamespace(ns).withName(name).get();
                    yield r;
                }
            };
        } catch (KubernetesClientException e) {
            // An owner we cannot read (a CRD not installed) is still named by the reference.
            return null;
        }
    }

    /** A gang kind, or an indexed Job whose parallel pods only make progress together. */
    public static boolean gang(String kind, HasMetadata o) {
        if (GANG_KINDS.contains(kind)) return true;
        return o instanceof io.fabric8.kubernetes.api.model.batch.v1.Job j && j.getSpec() != null
                && "Indexed".equals(j.getSpec().getCompletionMode()) && j.getSpec().getParallelism() != null
                && j.getSpec().getParallelism() > 1;
    }

    public static OwnerReference controllerOf(HasMetadata o) {
        List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
        if (refs == null || refs.isEmpty()) return null;
        return refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst().orElse(refs.get(0));
    }

    private static ResourceDefinitionContext ctx(String group, String version, String plural, String kind) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withPlural(plural)
                .withKind(kind).withNamespaced(true).build();
    }
}
