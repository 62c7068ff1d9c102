package io.acceltriage.evidence;

import static io.acceltriage.cluster.Owners.controllerOf;
import static io.acceltriage.evidence.AgentPods.amount;
import static io.acceltriage.evidence.AgentPods.parseInt;

import io.acceltriage.incident.Subject;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.acceltriage.cluster.ClusterReads;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Reads what Kubernetes knows about a subject: its node (accelerator capacity vs allocatable,
 * conditions, taints, DRA device taints), the pods there with their container states and KEP-4680
 * device health, the node agents, pending accelerator pods, events, and the workloads the pods belong
 * to. Read-only by construction: it only calls get and list.
 */
final class ClusterCollector {

    private static final int MAX_PENDING = 5;
    /** The taint a cordoned node carries. */
    static final String UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
    private static final int MAX_FOCUS_PODS = 16;
    private static final int MAX_METRIC_NODES = 8;
    /** ResourceSlice versions, newest first: v1 since Kubernetes 1.34 (DRA GA), v1beta1 before. */
    private static final List<ResourceDefinitionContext> RESOURCE_SLICES = java.util.stream.Stream.of("v1", "v1beta1")
            .map(v -> new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io").withVersion(v).withPlural("resourceslices")
                    .withKind("ResourceSlice").withNamespaced(false).build()).toList();

    private final ClusterReads reads;
    /** What the view does not hold (DRA slices) is read through the client. */
    private final KubernetesClient client;
    private final NodeAgents knowledge;
    private final Executor executor;

    /** What the gatherer can start before the collection ends: each read waits on the API server. */
    interface Early {
        /** The subject's node is known: its metrics need nothing more. */
        void nodeKnown(String node);

        /** These logs will be read whatever the owners turn out to be. */
        void logTargets(List<LogTarget> targets);

        /** The node agents ({@code namespace/pod}) seen not ready or restarting, as soon as the pods have been observed. */
        default void failingAgents(Set<String> agents) {
        }
    }

    /** The node agents among the observations that run not ready or have restarted: {@code namespace/pod}. */
    static Set<String> failingAgents(List<Observation> observations) {
        Set<String> out = new LinkedHashSet<>();
        for (Observation o : observations) {
            if (o.fact() instanceof Facts.ContainerState c && c.role().nodeAgent() && (!c.ready() || c.restarts() > 0)) {
                out.add(c.namespace() + "/" + c.pod());
            }
        }
        return out;
    }

    ClusterCollector(ClusterReads reads, NodeAgents knowledge, Executor executor) {
        this.reads = reads;
        this.client = reads.client();
        this.knowledge = knowledge;
        this.executor = executor;
    }

    ClusterView collect(Subject subject) {
        return collect(subject, new Early() {
            public void nodeKnown(String node) { }

            public void logTargets(List<LogTarget> targets) { }
        });
    }

    /**
     * Reads that do not depend on each other run at once: the events and pending pods lists from the
     * start; the node, its DRA slices and its pods as soon as the node is known; the owners of all
     * pods together; and the gatherer is told early what it can read beside (metrics, logs).
     */
    ClusterView collect(Subject subject, Early early) {
        AgentPods agentPods = new AgentPods(knowledge, reads::podsIn);
        CompletableFuture<List<Event>> events = async(reads::events);
        CompletableFuture<List<Pod>> pending = async(reads::pending);
        List<Observation> obs = new ArrayList<>();
        List<Gap> gaps = new ArrayList<>();
        Owners owners = new Owners();
        List<Pod> focus = new ArrayList<>();
        String nodeName = null;
        List<String> metricNodes = new ArrayList<>();
        switch (subject.kind()) {
            case NODE -> nodeName = subject.name();
            case POD -> {
                Pod pod = reads.pod(subject.namespace(), subject.name());
                if (pod == null) {
                    gaps.add(Gap.absent(Source.CLUSTER, "pod " + subject.namespace() + "/" + subject.name() + " no longer exists"));
                } else {
                    focus.add(pod);
                    nodeName = pod.getSpec().getNodeName();
                }
            }
        }
        // The subject's own pods need nothing more to have their logs read and their owners walked.
        List<LogTarget> earlyLogs = new ArrayList<>();
        for (Pod p : focus) {
            observePod(p, agentPods.roleOf(p), true, new ArrayList<>(), earlyLogs);
        }
        early.logTargets(earlyLogs);
        CompletableFuture<Void> focusOwners = owners.prefetchAsync(List.copyOf(focus));
        switch (subject.kind()) {
            case NODE, POD -> { }
            case WORKLOAD -> {
                focus.addAll(podsOfWorkload(subject, owners));
                if (focus.isEmpty()) {
                    gaps.add(Gap.absent(Source.CLUSTER, "no pods found for " + subject.key()));
                }
                nodeName = primaryNode(focus);
                for (Pod p : focus) {
                    String n = p.getSpec().getNodeName();
                    if (n != null && !metricNodes.contains(n) && metricNodes.size() < MAX_METRIC_NODES) metricNodes.add(n);
                }
            }
            default -> { }
        }
        if (nodeName != null && !metricNodes.contains(nodeName)) {
            metricNodes.add(0, nodeName);
        }
        if (nodeName != null) early.nodeKnown(nodeName);
        final String theNode = nodeName;
        CompletableFuture<Node> nodeRead = async(() -> theNode == null ? null : reads.node(theNode));
        CompletableFuture<List<GenericKubernetesResource>> slices = theNode == null ? CompletableFuture.completedFuture(List.of())
                : resourceSlices();
        CompletableFuture<List<Pod>> podsOnNode = async(() -> theNode == null ? List.<Pod>of()
                : reads.podsOn(theNode));

        // A workload's other nodes: a fault on one member's node stalls the whole gang or takes a replica
        // down, so each node the workload runs on is read as the subject's own node is.
        Map<String, CompletableFuture<Node>> memberNodeReads = new LinkedHashMap<>();
        if (subject.kind() == Subject.Kind.WORKLOAD) {
            for (String n : metricNodes) {
                if (!n.equals(theNode)) memberNodeReads.put(n, async(() -> reads.node(n)));
            }
        }
        Node node = join(nodeRead);
        String pool = null;
        boolean cordoned = false;
        if (nodeName != null && node == null) {
            gaps.add(Gap.absent(Source.CLUSTER, "node " + nodeName + " is not known to the API server"));
        }
        // The DRA slices are no watched kind: their request runs beside the logs and the exporter scrape, and what
        // they show is put here, in its place among the node's observations, once the logs have been asked for.
        int taintsAt = -1;
        if (node != null) {
            pool = knowledge.poolOf(labels(node));
            cordoned = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            Supplier<List<Node>> peers = poolPeers(node, pool);
            observeNode(node, pool, () -> draNodes(join(slices)), peers, obs);
            taintsAt = obs.size();
            try {
                observeBehindPool(node, pool, peers, obs);
            } catch (KubernetesClientException e) {
                gaps.add(new Gap(Source.CLUSTER, "the pool's nodes unreadable: " + apiFailure(e)));
            }
        }

        List<String> memberNodes = new ArrayList<>();
        for (Map.Entry<String, CompletableFuture<Node>> m : memberNodeReads.entrySet()) {
            Node member = join(m.getValue());
            if (member == null) continue;
            memberNodes.add(m.getKey());
            String memberPool = knowledge.poolOf(labels(member));
            observeNode(member, memberPool, () -> draNodes(join(slices)), poolPeers(member, memberPool), obs);
        }

        List<Node> readNodes = new ArrayList<>();
        if (node != null) readNodes.add(node);
        for (Map.Entry<String, CompletableFuture<Node>> m : memberNodeReads.entrySet()) {
            Node member = join(m.getValue());
            if (member != null) readNodes.add(member);
        }
        // Both only add to the picture: when the API server fails them, the rest of the view stands.
        try {
            observeSlices(readNodes, obs);
        } catch (KubernetesClientException e) {
            gaps.add(new Gap(Source.CLUSTER, "slice hosts unreadable: " + apiFailure(e)));
        }
        try {
            observeUnsatisfiable(focus, obs);
        } catch (KubernetesClientException e) {
            gaps.add(new Gap(Source.CLUSTER, "node capacities unreadable: " + apiFailure(e)));
        }

        Map<String, Pod> pods = new LinkedHashMap<>();
        focus.forEach(p -> pods.put(ref(p), p));
        for (Pod p : join(podsOnNode)) {
            if (nodeName != null && nodeName.equals(p.getSpec().getNodeName())) {
                pods.putIfAbsent(ref(p), p);
            }
        }

        // The nodes that should offer what a pending pod waits for but offer none: their agents are read as the node's are.
        try {
            for (Pod agent : observeUnoffered(focus, obs)) pods.putIfAbsent(ref(agent), agent);
        } catch (KubernetesClientException e) {
            gaps.add(new Gap(Source.CLUSTER, "the nodes offering the pending pods' resources unreadable: " + apiFailure(e)));
        }

        // What a pod shows, and so which logs matter, needs only its own owner reference: the logs
        // can be read while the owners are walked.
        List<LogTarget> logs = new ArrayList<>();
        Map<String, PodRole> roles = new HashMap<>();
        for (Pod p : pods.values()) {
            PodRole role = agentPods.roleOf(p);
            if (agentPods.impersonates(p)) {
                obs.add(new Observation(Source.CLUSTER, ref(p) + " is named like a node agent but runs where a tenant could have named it"
                        + " (beside accelerator workloads, outside the platform's namespaces): its log and status are read as the tenant's", null));
            }
            roles.put(ref(p), role);
            boolean focused = focus.contains(p);
            if (role.nodeAgent() || acceleratorsRequested(p) > 0 || focused) {
                // A node agent may run ready while failing inside (a driver container whose fabric manager did not
                // start waits for its signal): the node's agents' own logs are read whatever their state.
                observePod(p, role, focused || role.nodeAgent(), obs, logs);
            }
            if (focused && "Pending".equals(p.getStatus().getPhase())) {
                observePending(p, obs);
            }
            if ((focused || acceleratorsRequested(p) > 0) && "Failed".equals(p.getStatus().getPhase()) && p.getStatus().getReason() != null
                    && orEmpty(p.getStatus().getContainerStatuses()).isEmpty()) {
                // No container ever started: the kubelet refused the pod at admission and says why in its status.
                obs.add(new Observation(Source.CLUSTER, ref(p) + " rejected by the kubelet of " + p.getSpec().getNodeName() + ": "
                        + p.getStatus().getReason() + ": " + abbreviate(p.getStatus().getMessage()),
                        new Facts.PodRejected(p.getMetadata().getNamespace(), p.getMetadata().getName(), p.getSpec().getNodeName(),
                                p.getStatus().getReason(), abbreviate(p.getStatus().getMessage()))));
            }
        }
        early.logTargets(logs.stream().filter(t -> !earlyLogs.contains(t)).toList());
        early.failingAgents(failingAgents(obs));
        if (taintsAt >= 0) {
            List<Observation> taints = new ArrayList<>();
            observeDeviceTaints(nodeName, join(slices), taints);
            obs.addAll(taintsAt, taints);
        }
        join(focusOwners);
        // The workloads' pods (to find the nodes a gang or a Deployment spans) are listed while the owners are walked.
        Map<String, CompletableFuture<List<Pod>>> namespacePods = new ConcurrentHashMap<>();
        for (Pod p : pods.values()) {
            OwnerReference c = controllerOf(p);
            if (c != null && !"DaemonSet".equals(c.getKind())) podsIn(p.getMetadata().getNamespace(), namespacePods);
        }
        owners.prefetch(pods.values());

        List<PodPlacement> placements = new ArrayList<>();
        for (Pod p : pods.values()) {
            OwnerReference controller = controllerOf(p);
            PodRole role = roles.get(ref(p));
            Owner top = controller == null ? null : owners.top(p.getMetadata().getNamespace(), controller);
            placements.add(new PodPlacement(p.getMetadata().getNamespace(), p.getMetadata().getName(),
                    p.getSpec().getNodeName(), role, acceleratorsRequested(p), top == null || role.nodeAgent() ? null : top.ref(),
                    firstImage(p), controller != null));
        }
        observePendingAcceleratorPods(pods.keySet(), orGap(pending, Source.CLUSTER, "pending pods", gaps), owners, obs);

        List<Workload> workloads = workloadsOf(placements, owners, namespacePods);
        corroborateRuntimeFailures(obs);
        // Where the platform writes: its own namespaces and those of the node agents' DaemonSet pods.
        Set<String> platformNamespaces = new java.util.HashSet<>(knowledge.platformNamespaces());
        Map<String, Set<String>> exporterAddresses = new HashMap<>();
        for (Pod p : pods.values()) {
            PodRole role = roles.get(ref(p));
            if (role == null || !role.nodeAgent()) continue;
            platformNamespaces.add(p.getMetadata().getNamespace());
            if (role == PodRole.EXPORTER && p.getStatus() != null && p.getStatus().getPodIP() != null && p.getSpec().getNodeName() != null) {
                exporterAddresses.computeIfAbsent(p.getSpec().getNodeName(), k -> new LinkedHashSet<>()).add(p.getStatus().getPodIP());
            }
        }
        observeEvents(nodeName, memberNodes, pods.values(), workloads, orGap(events, Source.EVENTS, "events", gaps), platformNamespaces, obs);
        return new ClusterView(nodeName, pool, cordoned, metricNodes, obs, placements, workloads, logs, gaps, exporterAddresses);
    }

    /** Pods of a workload subject ("deployment/name", "jobset/name", …): their top owner or their controller is it. */
    private List<Pod> podsOfWorkload(Subject subject, Owners owners) {
        String name = subject.name().substring(subject.name().indexOf('/') + 1);
        List<Pod> out = new ArrayList<>();
        for (Pod p : reads.podsIn(subject.namespace())) {
            OwnerReference c = controllerOf(p);
            if (c == null) continue;
            Owner top = owners.top(subject.namespace(), c);
            if (name.equals(c.getName()) || (top != null && name.equals(top.name()))) {
                out.add(p);
                if (out.size() >= MAX_FOCUS_PODS) break;
            }
        }
        return out;
    }

    /** The node to look at for a workload: the one node its troubled pods share, else the one node all share. */
    private static String primaryNode(List<Pod> pods) {
        Set<String> troubled = new LinkedHashSet<>();
        Set<String> all = new LinkedHashSet<>();
        for (Pod p : pods) {
            String n = p.getSpec().getNodeName();
            if (n == null) continue;
            all.add(n);
            boolean ok = p.getStatus() != null && p.getStatus().getContainerStatuses() != null
                    && p.getStatus().getContainerStatuses().stream().allMatch(cs -> Boolean.TRUE.equals(cs.getReady()));
            if (!ok) troubled.add(n);
        }
        if (troubled.size() == 1) return troubled.iterator().next();
        return all.size() == 1 ? all.iterator().next() : null;
    }

    /**
     * The nodes that publish their devices through DRA: a ResourceSlice of theirs lists devices. Such a node serves its
     * accelerators as claims, not as an extended resource, so it advertising no nvidia.com/gpu is how it is built.
     */
    @SuppressWarnings("unchecked")
    static Set<String> draNodes(List<GenericKubernetesResource> slices) {
        Set<String> out = new HashSet<>();
        for (GenericKubernetesResource slice : slices) {
            Object spec = slice.getAdditionalProperties().get("spec");
            if (spec instanceof Map<?, ?> sp && sp.get("nodeName") instanceof String n && sp.get("devices") instanceof List<?> d
                    && !d.isEmpty()) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * {@code draNodes}: nodes whose devices are published as DRA ResourceSlices ({@link #draNodes}); asked for only
     * when the node advertises no extended resource, so a node that does never waits for the slices (not a watched
     * kind, read beside the logs). {@code peers}: the node's pool peers, listed only when its own counts agree.
     */
    void observeNode(Node node, String pool, Supplier<Set<String>> draNodes, Supplier<List<Node>> peers,
            List<Observation> obs) {
        String name = node.getMetadata().getName();
        Map<String, Quantity> capacity = orEmpty(node.getStatus().getCapacity());
        Map<String, Quantity> allocatable = orEmpty(node.getStatus().getAllocatable());
        Map<String, String> labels = labels(node);
        boolean acceleratorNode = knowledge.acceleratorNodeLabels().stream().anyMatch(labels::containsKey);
        Integer expected = null;
        for (String l : knowledge.expectedCountLabels()) {
            if (labels.containsKey(l)) {
                expected = parseInt(labels.get(l));
                break;
            }
        }
        for (String resource : knowledge.acceleratorResources()) {
            if (!capacity.containsKey(resource) && !(acceleratorNode && resource.equals(defaultResource(labels)))) {
                continue;
            }
            // A DRA-only node has no extended resource at all (not even 0): its devices are in its ResourceSlices.
            if (!capacity.containsKey(resource) && draNodes.get().contains(name)) continue;
            int cap = amount(capacity.get(resource));
            int alloc = amount(allocatable.get(resource));
            int exp = expected != null && resource.equals(defaultResource(labels)) ? expected : cap;
            String why = "";
            if (cap > 0 && cap == alloc && exp == cap) {
                // Capacity, allocatable and the node's own count label agree (a GPU the driver never enumerated after a reboot
                // is missing from all three): only the pool's other nodes of the same product show one is gone.
                OptionalInt theirs = poolCount(node, peers, resource);
                if (theirs.isPresent() && theirs.getAsInt() > cap) {
                    exp = theirs.getAsInt();
                    why = " (as the other nodes of pool " + pool + " advertise)";
                }
            }
            obs.add(new Observation(Source.CLUSTER,
                    name + " " + resource + ": capacity " + cap + ", allocatable " + alloc + (exp != cap ? ", expected " + exp + why : ""),
                    new Facts.AcceleratorCapacity(name, pool, resource, cap, alloc, exp)));
        }
        for (String l : knowledge.watchedNodeLabels()) {
            if (labels.containsKey(l)) {
                obs.add(new Observation(Source.CLUSTER, name + " label " + l + "=" + labels.get(l), new Facts.NodeLabel(name, l, labels.get(l))));
            }
        }
        for (NodeCondition c : orEmpty(node.getStatus().getConditions())) {
            boolean ready = "Ready".equals(c.getType());
            if (ready || "True".equals(c.getStatus())) {
                obs.add(new Observation(Source.CLUSTER,
                        name + " condition " + c.getType() + "=" + c.getStatus() + (c.getReason() == null ? "" : " (" + c.getReason() + ")"),
                        new Facts.NodeCondition(name, c.getType(), c.getStatus(), c.getReason(), c.getMessage())));
            }
        }
        boolean unschedulableTaint = orEmpty(node.getSpec().getTaints()).stream().anyMatch(t -> UNSCHEDULABLE.equals(t.getKey()));
        if (Boolean.TRUE.equals(node.getSpec().getUnschedulable()) && !unschedulableTaint) {
            // A cordoned node: the node lifecycle controller adds this taint; say so where it has not yet.
            obs.add(new Observation(Source.CLUSTER, name + " cordoned (spec.unschedulable)",
                    new Facts.NodeTaint(name, UNSCHEDULABLE, null, "NoSchedule")));
        }
        for (Taint t : orEmpty(node.getSpec().getTaints())) {
            obs.add(new Observation(Source.CLUSTER, name + " taint " + t.getKey() + (t.getValue() == null ? "" : "=" + t.getValue())
                    + ":" + t.getEffect(), new Facts.NodeTaint(name, t.getKey(), t.getValue(), t.getEffect())));
        }
        String deletion = node.getMetadata().getDeletionTimestamp();
        if (deletion != null) {
            // Only a cluster-scoped actor deletes a Node (its provisioner, the autoscaler, a person): the platform's word.
            List<String> finalizers = orEmpty(node.getMetadata().getFinalizers());
            obs.add(new Observation(Source.CLUSTER, name + " is being deleted (deletionTimestamp " + deletion
                    + (finalizers.isEmpty() ? "" : ", finalizers " + String.join(", ", finalizers)) + ")",
                    new Facts.NodeDeletion(name, instantOrNull(deletion), List.copyOf(finalizers))));
        }
    }

    /**
     * The hosts of each multi-host slice the read nodes belong to (a TPU slice is one node pool): a host
     * short of accelerators is named with how many of its slice's hosts have all of theirs.
     */
    private void observeSlices(List<Node> nodes, List<Observation> obs) {
        Set<String> seen = new LinkedHashSet<>();
        for (Node n : nodes) {
            Map<String, String> labels = labels(n);
            String topology = knowledge.sliceLabels().stream().filter(labels::containsKey).map(labels::get).findFirst().orElse(null);
            String poolLabel = knowledge.slicePoolLabelOf(labels);
            if (topology == null || poolLabel == null || !seen.add(poolLabel + "=" + labels.get(poolLabel)) || seen.size() > 4) continue;
            String pool = labels.get(poolLabel);
            String resource = defaultResource(labels);
            List<Node> hosts = reads.nodes().stream().filter(h -> pool.equals(labels(h).get(poolLabel))).toList();
            int whole = 0;
            List<Node> short_ = new ArrayList<>();
            for (Node h : hosts) {
                int cap = amount(orEmpty(h.getStatus().getCapacity()).get(resource));
                int alloc = amount(orEmpty(h.getStatus().getAllocatable()).get(resource));
                if (cap > 0 && alloc >= cap) whole++;
                else short_.add(h);
            }
            for (Node h : short_) {
                int cap = amount(orEmpty(h.getStatus().getCapacity()).get(resource));
                int alloc = amount(orEmpty(h.getStatus().getAllocatable()).get(resource));
                String hn = h.getMetadata().getName();
                obs.add(new Observation(Source.CLUSTER, "slice pool " + pool + " (" + topology + "): " + hn + " advertises " + alloc + " of " + cap
                        + " " + resource + "; " + whole + " of " + hosts.size() + " hosts have all theirs",
                        new Facts.SliceHost(hn, pool, topology, resource, cap, alloc, hosts.size(), whole)));
            }
        }
    }

    /**
     * The node's accelerator software behind its pool's: its version label below the value most of the pool's other
     * nodes carry. Read only for a node with such a label and a pool.
     */
    private void observeBehindPool(Node node, String pool, Supplier<List<Node>> poolPeers, List<Observation> obs) {
        Map<String, String> labels = labels(node);
        List<String> present = knowledge.poolVersionLabels().stream().filter(labels::containsKey).toList();
        if (pool == null || present.isEmpty()) return;
        String name = node.getMetadata().getName();
        List<Node> peers = poolPeers.get();
        for (String l : present) {
            Map<String, Integer> counts = new HashMap<>();
            peers.forEach(n -> {
                String v = labels(n).get(l);
                if (v != null) counts.merge(v, 1, Integer::sum);
            });
            Map.Entry<String, Integer> most = counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElse(null);
            if (most == null || most.getValue() * 2 <= peers.size()) continue;
            Double own = number(labels.get(l));
            Double theirs = number(most.getKey());
            if (own != null && theirs != null && own < theirs) {
                obs.add(new Observation(Source.CLUSTER, name + " label " + l + "=" + labels.get(l) + " while " + most.getValue() + " of the "
                        + peers.size() + " other nodes of pool " + pool + " carry " + most.getKey(),
                        new Facts.BehindPool(name, pool, l, labels.get(l), most.getKey(), most.getValue())));
            }
        }
    }

    /**
     * The other nodes of {@code node}'s pool, listed once for all that compares the node with them (its driver version,
     * its GPU count) and only when one of them asks; none without a pool. A failed listing fails each that asks.
     */
    Supplier<List<Node>> poolPeers(Node node, String pool) {
        String name = node.getMetadata().getName();
        return new Supplier<>() {
            private List<Node> peers;
            private KubernetesClientException failed;

            @Override
            public List<Node> get() {
                if (peers == null && failed == null) {
                    try {
                        peers = pool == null ? List.of() : reads.nodes().stream().filter(n -> !name.equals(n.getMetadata().getName())
                                && pool.equals(knowledge.poolOf(labels(n)))).toList();
                    } catch (KubernetesClientException e) {
                        failed = e;
                    }
                }
                if (failed != null) throw failed;
                return peers;
            }
        };
    }

    /** {@link #poolCount(Node, Supplier, String)} against the node's pool as listed now. */
    OptionalInt poolCount(Node node, String pool, String resource) {
        return poolCount(node, poolPeers(node, pool), resource);
    }

    /**
     * The {@code resource} capacity most of a node's pool peers of the same GPU product advertise (a strict majority of those
     * advertising any), or empty: no pool, no peers, no majority, or the nodes unreadable (the node's own view then stands).
     */
    OptionalInt poolCount(Node node, Supplier<List<Node>> poolPeers, String resource) {
        Map<String, String> own = labels(node);
        List<Node> all;
        try {
            all = poolPeers.get();
        } catch (KubernetesClientException e) {
            return OptionalInt.empty();
        }
        Map<Integer, Integer> counts = new HashMap<>();
        int peers = 0;
        for (Node n : all) {
            if (!sameProduct(own, labels(n))) continue;
            int c = amount(orEmpty(n.getStatus().getCapacity()).get(resource));
            if (c <= 0) continue;
            peers++;
            counts.merge(c, 1, Integer::sum);
        }
        final int of = peers;
        return counts.entrySet().stream().filter(e -> e.getValue() * 2 > of).mapToInt(Map.Entry::getKey).findFirst();
    }

    /** Two nodes carry the same accelerator product label values (or neither carries any). */
    private boolean sameProduct(Map<String, String> a, Map<String, String> b) {
        for (String l : knowledge.acceleratorNodeLabels()) {
            if (l.endsWith(".product") && !java.util.Objects.equals(a.get(l), b.get(l))) return false;
        }
        return true;
    }

    private static Double number(String s) {
        try {
            return s == null ? null : Double.valueOf(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * A pending pod asking one node for more of an accelerator than any node has can never be
     * scheduled (extended resources must fit one node): the workload's configuration, not capacity.
     */
    private void observeUnsatisfiable(List<Pod> focus, List<Observation> obs) {
        List<Pod> pendingAccel = focus.stream().filter(p -> p.getStatus() != null && "Pending".equals(p.getStatus().getPhase())
                && acceleratorsRequested(p) > 0).toList();
        if (pendingAccel.isEmpty()) return;
        Map<String, Integer> largest = new HashMap<>();
        for (Node n : reads.nodes()) {
            for (String r : knowledge.acceleratorResources()) {
                largest.merge(r, amount(orEmpty(n.getStatus().getAllocatable()).get(r)), Math::max);
            }
        }
        for (Pod p : pendingAccel) {
            for (String r : knowledge.acceleratorResources()) {
                int asked = requested(p, r);
                int most = largest.getOrDefault(r, 0);
                if (asked > 0 && asked > most) {
                    obs.add(new Observation(Source.CLUSTER, ref(p) + " pending: requests " + asked + " " + r + ", the largest node offers " + most,
                            new Facts.PodPending(p.getMetadata().getNamespace(), p.getMetadata().getName(), "RequestExceedsEveryNode",
                                    "requests " + asked + " " + r + " in one pod; the largest node offers " + most)));
                    break;
                }
            }
        }
    }

    /** Nodes read for one pending pod's missing resource: a few name the pattern, more would slow every triage. */
    private static final int MAX_UNOFFERED_NODES = 3;

    /**
     * A pending pod waits for an extended resource (an RDMA device, a NIC) or a DRA claim. A node whose agent
     * serves that resource may have found no device: it advertises 0 of it while other nodes advertise theirs, or
     * its ResourceSlice of the claim's driver lists no device while other nodes' slices list theirs. Such nodes
     * are named, and their node agents returned to be read (their logs say why they found none). Likewise a node that
     * offers the resource but lacks a label the pod selects on, one a node agent writes ({@code labelWriters}) and other
     * nodes carry with the value the pod wants: that agent labelled nothing there.
     */
    @SuppressWarnings("unchecked")
    List<Pod> observeUnoffered(List<Pod> focus, List<Observation> obs) {
        AgentPods agentPods = new AgentPods(knowledge, reads::podsIn);
        List<Pod> pending = focus.stream().filter(p -> p.getStatus() != null && "Pending".equals(p.getStatus().getPhase())
                && p.getSpec().getNodeName() == null).toList();
        if (pending.isEmpty()) return List.of();
        Map<String, String> unoffered = new LinkedHashMap<>(); // node -> what it does not offer
        Map<String, String> waiting = new HashMap<>();
        Map<String, Integer> offeredBy = new HashMap<>();
        List<Node> nodes = null;
        for (Pod p : pending) {
            Set<String> resources = new LinkedHashSet<>();
            for (var c : orEmpty(p.getSpec().getContainers())) {
                if (c.getResources() == null) continue;
                orEmpty(c.getResources().getRequests()).keySet().stream().filter(r -> r.contains("/")).forEach(resources::add);
                orEmpty(c.getResources().getLimits()).keySet().stream().filter(r -> r.contains("/")).forEach(resources::add);
            }
            for (String r : resources) {
                if (nodes == null) nodes = reads.nodes();
                List<Node> offering = nodes.stream().filter(n -> amount(orEmpty(n.getStatus().getCapacity()).get(r)) > 0).toList();
                if (offering.isEmpty()) continue; // known nowhere: a resource the cluster does not have, not a lost one
                for (Node n : nodes) {
                    Quantity q = orEmpty(n.getStatus().getCapacity()).get(r);
                    if (q != null && amount(q) == 0) {
                        unoffered.putIfAbsent(n.getMetadata().getName(), r);
                        waiting.putIfAbsent(n.getMetadata().getName(), ref(p));
                        offeredBy.putIfAbsent(n.getMetadata().getName(), offering.size());
                    }
                }
            }
            for (Map.Entry<String, String> sel : orEmpty(p.getSpec().getNodeSelector()).entrySet()) {
                Optional<String> writer = knowledge.writerOf(sel.getKey());
                if (writer.isEmpty() || resources.isEmpty()) continue;
                if (nodes == null) nodes = reads.nodes();
                int carrying = (int) nodes.stream().filter(n -> sel.getValue().equals(labels(n).get(sel.getKey()))).count();
                if (carrying == 0) continue; // no node carries it: the pod asks for what the cluster does not have
                for (Node n : nodes) {
                    boolean offers = resources.stream().anyMatch(r -> amount(orEmpty(n.getStatus().getCapacity()).get(r)) > 0);
                    if (offers && !labels(n).containsKey(sel.getKey())) {
                        unoffered.putIfAbsent(n.getMetadata().getName(), "label " + sel.getKey() + "=" + sel.getValue() + " (" + writer.get()
                                + " writes it)");
                        waiting.putIfAbsent(n.getMetadata().getName(), ref(p));
                        offeredBy.putIfAbsent(n.getMetadata().getName(), carrying);
                    }
                }
            }
            if (p.getSpec().getResourceClaims() != null && !p.getSpec().getResourceClaims().isEmpty()) {
                if (nodes == null) nodes = reads.nodes();
                Map<String, List<Map<String, Object>>> byDriver = new HashMap<>();
                for (GenericKubernetesResource slice : resourceSlices().join()) {
                    Map<String, Object> spec = (Map<String, Object>) slice.getAdditionalProperties().get("spec");
                    if (spec == null || !(spec.get("nodeName") instanceof String) || !(spec.get("driver") instanceof String)) continue;
                    byDriver.computeIfAbsent((String) spec.get("driver"), k -> new ArrayList<>()).add(spec);
                }
                Set<String> acceleratorNodes = new HashSet<>();
                for (Node n : nodes) {
                    if (knowledge.acceleratorNodeLabels().stream().anyMatch(labels(n)::containsKey)) acceleratorNodes.add(n.getMetadata().getName());
                }
                byDriver.forEach((driver, specs) -> {
                    long withDevices = specs.stream().filter(sp -> sp.get("devices") instanceof List<?> l && !l.isEmpty()).count();
                    if (withDevices == 0) return;
                    for (Map<String, Object> sp : specs) {
                        String n = (String) sp.get("nodeName");
                        boolean empty = !(sp.get("devices") instanceof List<?> l) || l.isEmpty();
                        if (empty && acceleratorNodes.contains(n)) {
                            unoffered.putIfAbsent(n, "devices of DRA driver " + driver + " (its ResourceSlice lists none)");
                            waiting.putIfAbsent(n, ref(p));
                            offeredBy.putIfAbsent(n, (int) withDevices);
                        }
                    }
                });
            }
        }
        List<Pod> agents = new ArrayList<>();
        final List<Node> all = nodes == null ? List.of() : nodes;
        unoffered.entrySet().stream().limit(MAX_UNOFFERED_NODES).forEach(u -> {
            String n = u.getKey();
            String pool = all.stream().filter(x -> n.equals(x.getMetadata().getName())).findFirst().map(x -> knowledge.poolOf(labels(x))).orElse(null);
            obs.add(new Observation(Source.CLUSTER, n + " offers no " + u.getValue() + " while " + offeredBy.get(n) + " other nodes offer theirs; "
                    + waiting.get(n) + " waits for it", new Facts.Unoffered(n, pool, u.getValue(), offeredBy.get(n), waiting.get(n))));
            for (Pod a : reads.podsOn(n)) {
                if (agentPods.roleOf(a).nodeAgent()) {
                    agents.add(a);
                }
            }
        });
        return agents;
    }

    private int requested(Pod p, String resource) {
        int n = 0;
        for (var c : orEmpty(p.getSpec().getContainers())) {
            if (c.getResources() == null) continue;
            Map<String, Quantity> limits = new HashMap<>(orEmpty(c.getResources().getRequests()));
            limits.putAll(orEmpty(c.getResources().getLimits()));
            n += amount(limits.get(resource));
        }
        return n;
    }

    /** The resource a node's labels point at when it advertises none (a plugin that lost its devices). */
    private static String defaultResource(Map<String, String> labels) {
        if (labels.keySet().stream().anyMatch(l -> l.startsWith("cloud.google.com/gke-tpu"))) return "google.com/tpu";
        if (labels.keySet().stream().anyMatch(l -> l.startsWith("amd.com/"))) return "amd.com/gpu";
        return "nvidia.com/gpu";
    }

    /**
     * The ResourceSlices of every version the server serves, asked at once (one after the other would add a round
     * trip to every node triage), the newest version's copy kept where two versions serve the same slice. Started
     * from the collecting thread, never from a read already on the pool, which would wait on its own pool.
     */
    private CompletableFuture<List<GenericKubernetesResource>> resourceSlices() {
        List<CompletableFuture<List<GenericKubernetesResource>>> asked = RESOURCE_SLICES.stream().map(version -> async(() -> {
            try {
                return client.genericKubernetesResources(version).list().getItems();
            } catch (KubernetesClientException e) {
                return List.<GenericKubernetesResource>of(); // not served in this version, or DRA is off: not a gap
            }
        })).toList();
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(done -> {
            Map<String, GenericKubernetesResource> byName = new LinkedHashMap<>();
            for (CompletableFuture<List<GenericKubernetesResource>> versionSlices : asked) {
                for (GenericKubernetesResource slice : versionSlices.join()) byName.putIfAbsent(slice.getMetadata().getName(), slice);
            }
            return List.copyOf(byName.values());
        });
    }

    @SuppressWarnings("unchecked")
    private void observeDeviceTaints(String node, List<GenericKubernetesResource> slices, List<Observation> obs) {
        for (GenericKubernetesResource slice : slices) {
            Map<String, Object> spec = (Map<String, Object>) slice.getAdditionalProperties().get("spec");
            if (spec == null || !node.equals(spec.get("nodeName")) || !(spec.get("devices") instanceof List)) {
                continue;
            }
            for (Object d : (List<Object>) spec.get("devices")) {
                Map<String, Object> device = (Map<String, Object>) d;
                Object taints = device.get("taints");
                if (taints == null && device.get("basic") instanceof Map) {
                    taints = ((Map<String, Object>) device.get("basic")).get("taints");
                }
                if (!(taints instanceof List)) continue;
                for (Object t : (List<Object>) taints) {
                    Map<String, Object> taint = (Map<String, Object>) t;
                    String key = String.valueOf(taint.get("key"));
                    String value = taint.get("value") == null ? null : String.valueOf(taint.get("value"));
                    String effect = String.valueOf(taint.get("effect"));
                    obs.add(new Observation(Source.CLUSTER, node + " DRA device " + device.get("name") + " taint " + key
                            + (value == null ? "" : "=" + value) + ":" + effect,
                            new Facts.DeviceTaint(node, String.valueOf(device.get("name")), key, value, effect)));
                }
            }
        }
    }

    private void observePod(Pod p, PodRole role, boolean focused, List<Observation> obs, List<LogTarget> logs) {
        String ns = p.getMetadata().getNamespace();
        String name = p.getMetadata().getName();
        String node = p.getSpec().getNodeName();
        List<ContainerStatus> statuses = new ArrayList<>(orEmpty(p.getStatus().getInitContainerStatuses()));
        statuses.addAll(orEmpty(p.getStatus().getContainerStatuses()));
        for (ContainerStatus cs : statuses) {
            String state = "running";
            String reason = null;
            String message = null;
            if (cs.getState() != null && cs.getState().getWaiting() != null) {
                state = "waiting";
                reason = cs.getState().getWaiting().getReason();
                message = cs.getState().getWaiting().getMessage();
            } else if (cs.getState() != null && cs.getState().getTerminated() != null) {
                state = "terminated";
                reason = cs.getState().getTerminated().getReason();
            }
            Integer lastExit = null;
            String lastReason = null;
            if (cs.getLastState() != null && cs.getLastState().getTerminated() != null) {
                lastExit = cs.getLastState().getTerminated().getExitCode();
                lastReason = cs.getLastState().getTerminated().getReason();
            }
            int restarts = cs.getRestartCount() == null ? 0 : cs.getRestartCount();
            boolean ready = Boolean.TRUE.equals(cs.getReady());
            boolean completed = "terminated".equals(state) && "Completed".equals(reason);
            boolean abnormal = !completed && (!ready || restarts > 0 || lastReason != null);
            if (abnormal) {
                obs.add(new Observation(Source.CLUSTER, describe(ns, name, cs.getName(), role, state, reason, restarts, lastExit, lastReason),
                        new Facts.ContainerState(ns, name, cs.getName(), node, role, state, reason, restarts, lastExit, lastReason, ready,
                                message == null || message.length() <= 1000 ? message : message.substring(0, 1000) + "…")));
            }
            if (abnormal || focused) {
                logs.add(new LogTarget(ns, name, cs.getName(), role, false));
                if (restarts > 0 || lastReason != null) {
                    logs.add(new LogTarget(ns, name, cs.getName(), role, true));
                }
            }
            for (ResourceStatus rs : orEmpty(cs.getAllocatedResourcesStatus())) {
                for (ResourceHealth h : orEmpty(rs.getResources())) {
                    obs.add(new Observation(Source.CLUSTER, ns + "/" + name + "/" + cs.getName() + " " + rs.getName() + " "
                            + h.getResourceID() + " health " + h.getHealth(),
                            new Facts.DeviceHealth(ns, name, cs.getName(), node, rs.getName(), h.getResourceID(), h.getHealth(),
                                    h.getAdditionalProperties().get("message") == null ? null
                                            : String.valueOf(h.getAdditionalProperties().get("message")))));
                }
            }
        }
    }

    /** What differs between two containers' copies of one runtime error: container, task and sandbox ids. */
    private static final java.util.regex.Pattern RUNTIME_IDS = java.util.regex.Pattern.compile("[0-9a-f]{8,}(-[0-9a-f]{4,})*");

    /**
     * The runtime's error in the kubelet's status of a container that cannot start is the tenant's own (its image, its
     * spec may cause it), until the same error stops the containers of another tenant on the same node: one tenant
     * cannot write a second tenant's pod status, nor make the second's containers fail. The same message (ids aside) in
     * pods of two or more namespaces on one node is the node's runtime speaking, read as the platform's. Two workloads of
     * one namespace are not enough: one tenant may give both the same spec that breaks the hook.
     */
    static void corroborateRuntimeFailures(List<Observation> obs) {
        List<Optional<String>> keys = obs.stream().map(ClusterCollector::startError).toList();
        Map<String, Set<String>> namespacesByError = new HashMap<>();
        for (int i = 0; i < obs.size(); i++) {
            Observation o = obs.get(i);
            keys.get(i).ifPresent(key -> namespacesByError.computeIfAbsent(key, k -> new HashSet<>())
                    .add(((Facts.ContainerState) o.fact()).namespace()));
        }
        for (int i = 0; i < obs.size(); i++) {
            int n = keys.get(i).map(k -> namespacesByError.get(k).size()).orElse(0);
            if (n >= 2) {
                obs.set(i, obs.get(i).withTrust(Trust.PLATFORM, "[the same error stops containers of " + n + " namespaces on "
                        + ((Facts.ContainerState) obs.get(i).fact()).node() + "]"));
            }
        }
    }

    /** The node and the runtime's message (ids aside) of a workload container that waits with one. */
    private static Optional<String> startError(Observation o) {
        return o.fact() instanceof Facts.ContainerState c && !c.role().nodeAgent() && "waiting".equals(c.state()) && c.message() != null
                && c.node() != null ? Optional.of(c.node() + "|" + RUNTIME_IDS.matcher(c.message()).replaceAll("#")) : Optional.empty();
    }

    private static String describe(String ns, String pod, String container, PodRole role, String state, String reason,
            int restarts, Integer lastExit, String lastReason) {
        StringBuilder sb = new StringBuilder(ns).append('/').append(pod).append('/').append(container);
        if (role.nodeAgent()) sb.append(" (").append(role.name().toLowerCase().replace('_', ' ')).append(')');
        sb.append(' ').append(state);
        if (reason != null) sb.append(" ").append(reason);
        sb.append(", ").append(restarts).append(" restarts");
        if (lastReason != null || lastExit != null) {
            sb.append(", last exit ").append(lastReason == null ? "" : lastReason).append(lastExit == null ? "" : " (" + lastExit + ")");
        }
        return sb.toString();
    }

    private void observePending(Pod p, List<Observation> obs) {
        observePending(p, null, obs);
    }

    private void observePending(Pod p, String workload, List<Observation> obs) {
        for (PodCondition c : orEmpty(p.getStatus().getConditions())) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())) {
                obs.add(new Observation(Source.CLUSTER, ref(p) + " pending: " + c.getReason() + ": " + c.getMessage()
                        + (workload == null ? "" : " [" + workload + "]"),
                        new Facts.PodPending(p.getMetadata().getNamespace(), p.getMetadata().getName(), c.getReason(), c.getMessage(),
                                workload)));
            }
        }
    }

    /** A few accelerator pods the scheduler cannot place: the symptom of capacity that went missing. */
    private void observePendingAcceleratorPods(Set<String> seen, List<Pod> pending, Owners owners, List<Observation> obs) {
        int n = 0;
        for (Pod p : pending) {
            if (n >= MAX_PENDING) break;
            if (!"Pending".equals(p.getStatus().getPhase()) || seen.contains(ref(p)) || acceleratorsRequested(p) == 0) continue;
            int before = obs.size();
            // Whose pod waits: a serving workload whose own new replica cannot be placed has no room to move into.
            OwnerReference c = controllerOf(p);
            Owner top = c == null ? null : owners.top(p.getMetadata().getNamespace(), c);
            observePending(p, top == null ? null : top.ref(), obs);
            if (obs.size() > before) n++;
        }
    }

    private void observeEvents(String node, List<String> memberNodes, Iterable<Pod> pods, List<Workload> workloads, List<Event> events,
            Set<String> platformNamespaces, List<Observation> obs) {
        Set<String> names = new LinkedHashSet<>();
        if (node != null) names.add("Node/" + node);
        for (String n : memberNodes) names.add("Node/" + n);
        for (Pod p : pods) names.add("Pod/" + p.getMetadata().getName());
        for (Workload w : workloads) names.add(w.kind() + "/" + w.name());
        for (Observation o : obs) {
            if (o.fact() instanceof Facts.PodPending pp) names.add("Pod/" + pp.pod());
        }
        for (Event e : events) {
            var io = e.getInvolvedObject();
            if (io == null || !names.contains(io.getKind() + "/" + io.getName())) continue;
            int count = e.getCount() == null ? 1 : e.getCount();
            // Who wrote it is told by where it was written: a workload may write events into its own
            // namespace naming any component and any object, the Node included; only the platform
            // writes into the platform's namespaces.
            String writtenIn = e.getMetadata() == null ? null : e.getMetadata().getNamespace();
            Trust trust = writtenIn == null || writtenIn.isEmpty() || platformNamespaces.contains(writtenIn) ? Trust.PLATFORM : Trust.TENANT;
            boolean foreign = trust == Trust.TENANT && "Node".equals(io.getKind());
            obs.add(new Observation(Source.EVENTS, io.getKind() + " " + (io.getNamespace() == null ? "" : io.getNamespace() + "/")
                    + io.getName() + ": " + e.getType() + " " + e.getReason() + ": " + abbreviate(e.getMessage())
                    + (count > 1 ? " (x" + count + ")" : "") + (foreign ? " [written in namespace " + writtenIn + ", not by a node agent]" : ""),
                    new Facts.ClusterEvent(io.getNamespace(), io.getKind(), io.getName(), e.getType(), e.getReason(),
                            abbreviate(e.getMessage()), count, lastSeen(e)), trust, null));
        }
    }

    private static java.time.Instant lastSeen(Event e) {
        for (String t : new String[] {e.getLastTimestamp(), e.getEventTime() == null ? null : e.getEventTime().getTime(),
                e.getFirstTimestamp(), e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()}) {
            if (t == null || t.isBlank()) continue;
            try {
                return java.time.OffsetDateTime.parse(t).toInstant();
            } catch (java.time.format.DateTimeParseException ignored) {
                // try the next field
            }
        }
        return null;
    }

    /** An API server time stamp (RFC 3339), or null when it does not parse: the fact stands without its time. */
    private static java.time.Instant instantOrNull(String t) {
        try {
            return java.time.OffsetDateTime.parse(t).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private CompletableFuture<List<Pod>> podsIn(String namespace, Map<String, CompletableFuture<List<Pod>>> namespacePods) {
        return namespacePods.computeIfAbsent(namespace, ns -> async(() -> reads.podsIn(ns)));
    }

    private List<Workload> workloadsOf(List<PodPlacement> placements, Owners owners,
            Map<String, CompletableFuture<List<Pod>>> namespacePods) {
        Map<String, List<String>> podsByWorkload = new LinkedHashMap<>();
        for (PodPlacement p : placements) {
            if (p.workloadRef() != null) {
                podsByWorkload.computeIfAbsent(p.workloadRef(), k -> new ArrayList<>()).add(p.name());
            }
        }
        Map<String, CompletableFuture<List<String>>> nodesByWorkload = new LinkedHashMap<>();
        // Composed, not joined inside the pool: a pool thread never waits on another.
        podsByWorkload.keySet().forEach(ref -> nodesByWorkload.put(ref, podsIn(owners.byRef(ref).namespace(), namespacePods)
                .thenApplyAsync(inNamespace -> nodesOf(owners.byRef(ref), owners, inNamespace), executor)));
        List<Workload> out = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : podsByWorkload.entrySet()) {
            Owner top = owners.byRef(e.getKey());
            List<String> nodes = new ArrayList<>(new LinkedHashSet<>(join(nodesByWorkload.get(e.getKey()))));
            out.add(new Workload(top.kind(), top.namespace(), top.name(), top.gang(), top.serving(), e.getValue(), nodes,
                    top.replicas(), top.available()));
        }
        return out;
    }

    /** Nodes where any pod of the workload runs (a gang's members, a Deployment's replicas). */
    private List<String> nodesOf(Owner top, Owners owners, List<Pod> namespacePods) {
        List<String> nodes = new ArrayList<>();
        for (Pod p : namespacePods) {
            OwnerReference c = controllerOf(p);
            if (c == null || p.getSpec().getNodeName() == null) continue;
            Owner t = owners.top(top.namespace(), c);
            if (t != null && t.ref().equals(top.ref())) nodes.add(p.getSpec().getNodeName());
        }
        return nodes;
    }

    private record Owner(String kind, String namespace, String name, boolean gang, boolean serving, Integer replicas,
            Integer available) {
        String ref() {
            return namespace + "/" + name;
        }
    }

    /** Walks owner references to the top-level workload, remembering what it fetched. */
    private final class Owners {
        /** DaemonSets own only node agents: their pods' top needs no read of the DaemonSet itself. */
        private final io.acceltriage.cluster.Owners walker = new io.acceltriage.cluster.Owners(client,
                (kind, ns, name, read) -> "DaemonSet".equals(kind) ? null : reads.owner(kind, ns, name, read));
        private final Map<String, Optional<Owner>> cache = new ConcurrentHashMap<>();
        private final Map<String, Owner> byRef = new ConcurrentHashMap<>();

        /** Walks the owners of all pods at once: each walk is a few reads in a row. */
        void prefetch(java.util.Collection<Pod> pods) {
            join(prefetchAsync(pods));
        }

        /** The walks, started; composed so that no pool thread waits on another. */
        CompletableFuture<Void> prefetchAsync(java.util.Collection<Pod> pods) {
            Map<String, CompletableFuture<Owner>> walks = new LinkedHashMap<>();
            for (Pod p : pods) {
                OwnerReference c = controllerOf(p);
                if (c == null) continue;
                String ns = p.getMetadata().getNamespace();
                walks.putIfAbsent(ns + "/" + c.getKind() + "/" + c.getName(), async(() -> top(ns, c)));
            }
            return CompletableFuture.allOf(walks.values().toArray(CompletableFuture[]::new));
        }

        Owner byRef(String ref) {
            return byRef.get(ref);
        }

        Owner top(String ns, OwnerReference ref) {
            String key = ns + "/" + ref.getKind() + "/" + ref.getName();
            Optional<Owner> known = cache.get(key);
            if (known != null) return known.orElse(null);
            Owner owner = resolve(ns, ref);
            cache.put(key, Optional.ofNullable(owner));
            if (owner != null) byRef.put(owner.ref(), owner);
            return owner;
        }

        private Owner resolve(String ns, OwnerReference ref) {
            io.acceltriage.cluster.Owners.Top top = walker.topOfRef(ns, ref);
            if (top == null) return null;
            HasMetadata object = top.object();
            boolean serving = !top.gang() && ("Deployment".equals(top.kind()) || "StatefulSet".equals(top.kind())
                    || "ReplicaSet".equals(top.kind()));
            Integer replicas = null;
            Integer available = null;
            if (object instanceof Deployment d) {
                replicas = d.getSpec().getReplicas();
                available = d.getStatus() == null ? null : d.getStatus().getAvailableReplicas();
            } else if (object instanceof StatefulSet s) {
                replicas = s.getSpec().getReplicas();
                available = s.getStatus() == null ? null : s.getStatus().getAvailableReplicas();
            }
            return new Owner(top.kind(), ns, top.name(), top.gang(), serving, replicas, available);
        }
    }

    private <T> CompletableFuture<T> async(java.util.function.Supplier<T> read) {
        return CompletableFuture.supplyAsync(read, executor);
    }

    /** The result of a read started earlier; its API error surfaces here as if it had been read in line. */
    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw e;
        }
    }

    /**
     * A list that only adds to the picture (events, pending pods): when the API server fails it, the
     * rest of the view stands and the gap says what is missing.
     */
    private static <T> List<T> orGap(CompletableFuture<List<T>> f, Source source, String what, List<Gap> gaps) {
        try {
            return join(f);
        } catch (KubernetesClientException e) {
            gaps.add(new Gap(source, what + " unreadable: " + apiFailure(e)));
            return List.of();
        }
    }

    /**
     * The API server's failure in words an operator can act on. fabric8 gives a request that got no
     * answer (a timeout, a refused connection) the code 0 or -1, which is no HTTP status to print.
     */
    static String apiFailure(KubernetesClientException e) {
        if (e.getCode() > 0) {
            return "Kubernetes API answered HTTP " + e.getCode() + " (" + e.getMessage() + ")";
        }
        boolean timeout = false;
        for (Throwable t = e; t != null && !timeout; t = t.getCause() == t ? null : t.getCause()) {
            timeout = t instanceof java.util.concurrent.TimeoutException || t instanceof java.net.http.HttpTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout");
        }
        return "Kubernetes API gave " + (timeout ? "no answer within the request timeout" : "no answer") + " (" + e.getMessage()
                + "); check the API server and the network to it";
    }

    private int acceleratorsRequested(Pod p) {
        return AgentPods.acceleratorsRequested(p, knowledge.acceleratorResources());
    }

    private static String firstImage(Pod p) {
        var cs = p.getSpec().getContainers();
        return cs == null || cs.isEmpty() ? null : cs.get(0).getImage();
    }

    static String ref(Pod p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }

    private static Map<String, String> labels(HasMetadata o) {
        return o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels();
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    private static <T> List<T> orEmpty(List<T> l) {
        return l == null ? List.of() : l;
    }

    private static <K, V> Map<K, V> orEmpty(Map<K, V> m) {
        return m == null ? Map.of() : m;
    }
}
