package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads pools and opt-out labels from the live cluster, so limits are applied to the world as it is now.
 * {@link #forOneDecision()} gives a census that reads each object once: judging one assessment's
 * proposals asks for the same node and workload many times, and on a slow API server each read counts.
 */
public final class PoolCensus implements ClusterFacts {

    private final ClusterReads reads;
    private final List<String> poolLabels;
    private final List<String> acceleratorResources;
    private final Owners owners;
    /** Null: every call reads the cluster. */
    private final Map<String, Optional<Object>> memo;

    public PoolCensus(KubernetesClient client, List<String> poolLabels, List<String> acceleratorResources) {
        this(ClusterReads.direct(client), poolLabels, acceleratorResources, null);
    }

    /** Through a watched view: the census costs no request, and the view re-reads what this process wrote. */
    public PoolCensus(ClusterReads reads, List<String> poolLabels, List<String> acceleratorResources) {
        this(reads, poolLabels, acceleratorResources, null);
    }

    private PoolCensus(ClusterReads reads, List<String> poolLabels, List<String> acceleratorResources,
            Map<String, Optional<Object>> memo) {
        this.reads = reads;
        this.poolLabels = poolLabels;
        this.acceleratorResources = acceleratorResources;
        this.memo = memo;
        this.owners = memo == null ? new Owners(reads) : new Owners(reads.client(), (kind, ns, name, fetch) ->
                read(kind + ":" + ns + "/" + name, () -> reads.owner(kind, ns, name, fetch)));
    }

    /** Never kept past one assessment: a cap must see a node cordoned a moment ago. */
    @Override
    public ClusterFacts forOneDecision() {
        // concurrent: Owners probes workload kinds in parallel through it
        return new PoolCensus(reads, poolLabels, acceleratorResources, new java.util.concurrent.ConcurrentHashMap<>());
    }

    @SuppressWarnings("unchecked")
    private <T> T read(String key, java.util.function.Supplier<T> read) {
        if (memo == null) return guarded(read);
        Optional<Object> known = memo.get(key);
        if (known == null) {
            known = Optional.ofNullable(guarded(read));
            memo.put(key, known);
        }
        return (T) known.orElse(null);
    }

    /** A read the caller cannot decide without: its failure is {@link ClusterUnreadable}, in the caller's words. */
    private static <T> T guarded(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            throw new ClusterUnreadable(e.getMessage(), e);
        }
    }

    /** In one decision the node list is read anyway (pool shares), so a node comes from it. */
    private Node node(String name) {
        if (memo == null) return guarded(() -> reads.node(name));
        return nodes().stream().filter(n -> name.equals(n.getMetadata().getName())).findFirst().orElse(null);
    }

    private List<Node> nodes() {
        return read("nodes", reads::nodes);
    }

    private Pod pod(String ns, String name) {
        return read("pod:" + ns + "/" + name, () -> reads.pod(ns, name));
    }

    private List<Pod> podsOn(String node) {
        return read("pods-on:" + node, () -> reads.podsOn(node));
    }

    @Override
    public PoolState poolOf(String nodeName) {
        Node target = node(nodeName);
        String pool = target == null ? null : pool(target);
        int nodes = 0;
        int cordoned = 0;
        int healthyOthers = 0;
        for (Node n : nodes()) {
            if (!Objects.equals(pool, pool(n)) || (pool == null && !accelerated(n))) continue;
            nodes++;
            boolean unschedulable = Boolean.TRUE.equals(n.getSpec().getUnschedulable());
            if (unschedulable) {
                cordoned++;
            } else if (ready(n) && !n.getMetadata().getName().equals(nodeName)) {
                healthyOthers++;
            }
        }
        boolean targetCordoned = target != null && Boolean.TRUE.equals(target.getSpec().getUnschedulable());
        return new PoolState(pool == null ? "(no pool label)" : pool, nodes, cordoned, healthyOthers, targetCordoned);
    }

    @Override
    public boolean optedOut(TargetKind kind, String target, String label) {
        if (kind == TargetKind.NODE) {
            Node n = node(target);
            return n != null && hasLabel(n, label);
        }
        int slash = target.indexOf('/');
        if (slash < 0) return false;
        String ns = target.substring(0, slash);
        String name = target.substring(slash + 1);
        HasMetadata o = switch (kind) {
            case POD -> pod(ns, name);
            default -> null;
        };
        if (o != null && hasLabel(o, label)) return true;
        // A workload that opted out covers its pods too.
        return workloadOf(kind, target).map(w -> w.labels().containsKey(label) && !"false".equalsIgnoreCase(w.labels().get(label)))
                .orElse(false);
    }

    @Override
    public Optional<WorkloadFacts> workloadOf(TargetKind kind, String target) {
        int slash = target.indexOf('/');
        if (kind == TargetKind.NODE || slash < 0) return Optional.empty();
        String ns = target.substring(0, slash);
        String name = target.substring(slash + 1);
        if (kind == TargetKind.POD) {
            Pod pod = pod(ns, name);
            return pod == null ? Optional.empty() : Optional.ofNullable(owners.topOf(pod)).map(this::facts);
        }
        return Optional.ofNullable(owners.byName(ns, name)).map(this::facts);
    }

    @Override
    public List<WorkloadFacts> workloadsOnNode(String node) {
        Map<String, WorkloadFacts> out = new LinkedHashMap<>();
        for (Pod pod : podsOn(node)) {
            if (!node.equals(pod.getSpec().getNodeName())) continue;
            Owners.Top top = owners.topOf(pod);
            if (top == null || "DaemonSet".equals(top.kind())) continue;
            out.computeIfAbsent(top.namespace() + "/" + top.name(), k -> facts(top));
        }
        return new ArrayList<>(out.values());
    }

    @Override
    public Map<String, String> labelsOf(TargetKind kind, String target) {
        Map<String, String> labels = new HashMap<>();
        if (kind == TargetKind.NODE) {
            Node n = node(target);
            if (n != null && n.getMetadata().getLabels() != null) labels.putAll(n.getMetadata().getLabels());
            return labels;
        }
        workloadOf(kind, target).ifPresent(w -> labels.putAll(w.labels()));
        int slash = target.indexOf('/');
        if (kind == TargetKind.POD && slash > 0) {
            Pod pod = pod(target.substring(0, slash), target.substring(slash + 1));
            if (pod != null && pod.getMetadata().getLabels() != null) labels.putAll(pod.getMetadata().getLabels());
        }
        return labels;
    }

    private WorkloadFacts facts(Owners.Top top) {
        int replicas = 0;
        int ready = 0;
        Map<String, String> selector = null;
        if (top.object() instanceof Deployment d) {
            replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            selector = d.getSpec().getSelector() == null ? null : d.getSpec().getSelector().getMatchLabels();
        } else if (top.object() instanceof StatefulSet s) {
            replicas = s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
            selector = s.getSpec().getSelector() == null ? null : s.getSpec().getSelector().getMatchLabels();
        }
        Map<String, String> matching = selector;
        List<Pod> pods = matching == null ? List.of()
                : guarded(() -> reads.podsLabelled(top.namespace(), matching));
        for (Pod p : pods) {
            if (podReady(p) && p.getMetadata().getDeletionTimestamp() == null) ready++;
        }
        int needed = replicas;
        if (selector != null) {
            for (PodDisruptionBudget pdb : guarded(() -> reads.budgets(top.namespace()))) {
                var sel = pdb.getSpec().getSelector();
                if (sel == null || sel.getMatchLabels() == null || !selector.entrySet().containsAll(sel.getMatchLabels().entrySet())) continue;
                IntOrString min = pdb.getSpec().getMinAvailable();
                IntOrString maxUnavailable = pdb.getSpec().getMaxUnavailable();
                if (min != null) {
                    needed = min.getIntVal() != null ? min.getIntVal() : (int) Math.ceil(replicas * percent(min.getStrVal()));
                } else if (maxUnavailable != null) {
                    int max = maxUnavailable.getIntVal() != null ? maxUnavailable.getIntVal()
                            : (int) Math.floor(replicas * percent(maxUnavailable.getStrVal()));
                    needed = Math.max(0, replicas - max);
                }
            }
        }
        boolean serving = replicas > 0;
        Map<String, String> labels = top.object() == null || top.object().getMetadata().getLabels() == null ? Map.of()
                : top.object().getMetadata().getLabels();
        return new WorkloadFacts(top.kind(), top.namespace(), top.name(), top.gang(), serving && !top.gang(), replicas, ready,
                needed, serving && spareCapacity(pods), labels);
    }

    /** Room for one more replica: a ready, schedulable node of the workload's pools with free accelerators. */
    private boolean spareCapacity(List<Pod> replicas) {
        java.util.Set<String> pools = new java.util.HashSet<>();
        for (Pod p : replicas) {
            if (p.getSpec().getNodeName() == null) continue;
            Node n = node(p.getSpec().getNodeName());
            if (n != null) pools.add(pool(n));
        }
        for (Node n : nodes()) {
            if (!pools.contains(pool(n)) || Boolean.TRUE.equals(n.getSpec().getUnschedulable()) || !ready(n)) continue;
            for (String r : acceleratorResources) {
                Quantity alloc = n.getStatus().getAllocatable() == null ? null : n.getStatus().getAllocatable().get(r);
                if (alloc == null) continue;
                double used = 0;
                for (Pod p : podsOn(n.getMetadata().getName())) {
                    if (!n.getMetadata().getName().equals(p.getSpec().getNodeName())) continue;
                    for (var c : p.getSpec().getContainers()) {
                        if (c.getResources() != null && c.getResources().getRequests() != null
                                && c.getResources().getRequests().get(r) != null) {
                            used += c.getResources().getRequests().get(r).getNumericalAmount().doubleValue();
                        }
                    }
                }
                if (alloc.getNumericalAmount().doubleValue() - used >= 1) return true;
            }
        }
        return false;
    }

    private static double percent(String s) {
        return s == null ? 1 : Double.parseDouble(s.replace("%", "")) / 100.0;
    }

    private static boolean podReady(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) return false;
        return p.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean hasLabel(HasMetadata o, String label) {
        Map<String, String> labels = o.getMetadata().getLabels();
        return labels != null && labels.containsKey(label) && !"false".equalsIgnoreCase(labels.get(label));
    }

    private String pool(Node n) {
        Map<String, String> labels = n.getMetadata().getLabels();
        if (labels == null) return null;
        for (String l : poolLabels) {
            if (labels.containsKey(l)) return labels.get(l);
        }
        return null;
    }

    private boolean accelerated(Node n) {
        var cap = n.getStatus() == null ? null : n.getStatus().getCapacity();
        return cap != null && acceleratorResources.stream().anyMatch(cap::containsKey);
    }

    private static boolean ready(Node n) {
        if (n.getStatus() == null || n.getStatus().getConditions() == null) return false;
        for (NodeCondition c : n.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) return "True".equals(c.getStatus());
        }
        return false;
    }

    @Override
    public Optional<String> failedValidation(String node) {
        Node n = node(node);
        if (n == null || n.getMetadata().getLabels() == null || !"failed".equals(n.getMetadata().getLabels().get(VALIDATION_LABEL))) {
            return Optional.empty();
        }
        Map<String, String> notes = n.getMetadata().getAnnotations();
        String words = notes == null ? null : notes.get(VALIDATION_MESSAGE);
        return Optional.of(words == null || words.isBlank() ? "no diagnostic message recorded" : words);
    }

    @Override
    public Optional<String> machineReplacedOnRepair(String node) {
        try {
            io.fabric8.kubernetes.api.model.Node n = reads.node(node);
            Map<String, String> notes = n == null || n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
            String machine = notes.get("cluster.x-k8s.io/machine");
            String namespace = notes.get("cluster.x-k8s.io/cluster-namespace");
            if (machine == null || namespace == null) return Optional.empty();
            var client = reads.client();
            var m = client.genericKubernetesResources("cluster.x-k8s.io/v1beta1", "Machine").inNamespace(namespace).withName(machine).get();
            if (m == null) return Optional.empty();
            Map<String, String> labels = m.getMetadata().getLabels() == null ? Map.of() : m.getMetadata().getLabels();
            for (var check : client.genericKubernetesResources("cluster.x-k8s.io/v1beta1", "MachineHealthCheck").inNamespace(namespace)
                    .list().getItems()) {
                if (!(check.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)) continue;
                boolean selects = spec.get("selector") instanceof Map<?, ?> sel && sel.get("matchLabels") instanceof Map<?, ?> wanted
                        && wanted.entrySet().stream().allMatch(e -> String.valueOf(e.getValue()).equals(labels.get(String.valueOf(e.getKey()))));
                if (!selects) continue;
                if (spec.get("remediationTemplate") != null) return Optional.empty();
                return Optional.of("its MachineHealthCheck " + namespace + "/" + check.getMetadata().getName()
                        + " names no remediationTemplate, so Cluster API deletes Machine " + machine + " and its MachineSet replaces it");
            }
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty(); // not readable here (no Cluster API, no rights): the policy's protocol decides alone
        }
    }
}
