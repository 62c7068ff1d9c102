package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What correlation asks the cluster, read-only: where a pod runs, which workload it belongs to, and
 * which gangs have a member on a node. A read that fails answers nothing, so correlation narrows to
 * what the alert's labels say and never loses the alert.
 */
public final class Membership {

    /** A top-level workload; {@code gang} when its pods are restarted only together. */
    public record Workload(String kind, String namespace, String name, boolean gang) {}

    /** Where a pod runs ({@code node} null while unscheduled) and its top-level workload (null when unowned). */
    public record PodPlace(String node, Workload top) {}

    private final ClusterReads reads;
    private final Owners owners;

    /** Every read a request to the API server. */
    public Membership(io.fabric8.kubernetes.client.KubernetesClient client) {
        this(ClusterReads.direct(client));
    }

    /** {@code reads} may be null: every answer is then empty. */
    public Membership(ClusterReads reads) {
        this.reads = reads;
        // Deployments and DaemonSets are tops in practice: naming them needs no read of their own.
        this.owners = reads == null ? null : new Owners(reads.client(), (kind, ns, name, read) ->
                "Deployment".equals(kind) || "DaemonSet".equals(kind) ? null : reads.owner(kind, ns, name, read));
    }

    public Optional<PodPlace> pod(String namespace, String name) {
        Pod pod = get(() -> reads.pod(namespace, name));
        if (pod == null) return Optional.empty();
        return Optional.of(new PodPlace(pod.getSpec() == null ? null : pod.getSpec().getNodeName(), top(pod)));
    }

    /** The top-level owner of a Job (a replicated job of a JobSet, say), empty when the Job is its own top. */
    public Optional<Workload> topOfJob(String namespace, String name) {
        HasMetadata job = get(() -> owners.fetch(namespace, "Job", name));
        return job == null ? Optional.empty() : Optional.ofNullable(top(job));
    }

    /**
     * The top-level workload (not a DaemonSet) of {@code namespace} named one of {@code names}, the first of them that
     * names one, found through its pods: an alert may name its workload under a label of its own (a recording rule's
     * {@code job}, say). Only pods whose name starts with a candidate are walked: a pod is named after its workload.
     */
    public Optional<Workload> workloadNamed(String namespace, List<String> names) {
        if (names.isEmpty()) return Optional.empty();
        List<Pod> pods = get(() -> reads.podsIn(namespace));
        if (pods == null) return Optional.empty();
        java.util.Map<String, Workload> found = new java.util.HashMap<>();
        for (Pod p : pods) {
            String pod = p.getMetadata().getName();
            if (names.stream().noneMatch(n -> pod.startsWith(n + "-"))) continue;
            Workload top = top(p);
            if (top != null && !"DaemonSet".equals(top.kind()) && names.contains(top.name())) found.putIfAbsent(top.name(), top);
        }
        return names.stream().map(found::get).filter(java.util.Objects::nonNull).findFirst();
    }

    /** The gangs with a member on the node: a device fault there stalls all of them. */
    public List<Workload> gangsOn(String node) {
        List<Workload> out = new ArrayList<>();
        List<Pod> pods = get(() -> reads.podsOn(node));
        if (pods == null) return out;
        for (Pod p : pods) {
            if (p.getSpec() == null || !node.equals(p.getSpec().getNodeName())) continue;
            Workload top = top(p);
            if (top != null && top.gang() && !out.contains(top)) out.add(top);
        }
        return out;
    }

    private Workload top(HasMetadata object) {
        Owners.Top t = get(() -> owners.topOf(object));
        return t == null ? null : new Workload(t.kind(), t.namespace(), t.name(), t.gang());
    }

    private <T> T get(Supplier<T> read) {
        if (reads == null) return null;
        try {
            return read.get();
        } catch (KubernetesClientException e) {
            return null; // correlation falls back to what the labels say; triage reports the API's state
        }
    }
}
