package io.acceltriage.action;

import io.acceltriage.cluster.Owners;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Resets one GPU of a node, as NVSentinel and the GPU operator do it: the node is cordoned so nothing
 * new lands, only the pods holding that GPU are evicted (pods on the node's other GPUs keep running),
 * the GPU operator's operands are paused with their per-node {@code nvidia.com/gpu.deploy.<operand>}
 * labels, and the reset is asked of the node agent through a label handshake (the agent runs
 * {@code nvidia-smi --gpu-reset -i N} and answers). The operands are then restored, the GPU must
 * come back healthy with its XID cleared, and only then is the node uncordoned.
 *
 * <p>The handshake, on the Node: acceltriage sets the label {@value #REQUEST}{@code =<index>}; the
 * node agent answers with {@value #STATE}{@code =succeeded|failed} and its own words in the
 * annotation {@value #MESSAGE}. The labels acceltriage paused are remembered in the annotation
 * {@value #PAUSED}, so a reset resumed after a crash restores exactly what was there.
 */
final class ResetGpu implements Mitigation {

    static final String REQUEST = "acceltriage.io/gpu-reset";
    static final String STATE = "acceltriage.io/gpu-reset-state";
    static final String MESSAGE = "acceltriage.io/gpu-reset-message";
    static final String PAUSED = "acceltriage.io/gpu-reset-paused";
    static final String DEPLOY = "nvidia.com/gpu.deploy.";
    static final String GPU = "nvidia.com/gpu";

    private final KubernetesClient client;
    private final CordonNode cordon;
    private final GpuDevices gpus;
    private final Supplier<Policy> policy;
    private final Predicate<String> cordonedByUs;
    private final Timing timing;
    private final ResetJob resetJob;
    private final DeviceTaints devices;

    private static final Policy.Dra DEFAULT_DRA = new Policy.Dra("gpu.nvidia.com", "resource.k8s.io/v1alpha3");

    /** {@code cordonedByUs}: whether this service's own cordon-node fenced the node, so the reset may open it again. */
    ResetGpu(KubernetesClient client, Supplier<Policy.Taint> taint, GpuDevices gpus, Supplier<Policy> policy,
            Predicate<String> cordonedByUs, Timing timing) {
        this.client = client;
        this.cordon = new CordonNode(client, taint, timing);
        this.gpus = gpus;
        this.policy = policy;
        this.cordonedByUs = cordonedByUs;
        this.timing = timing;
        this.resetJob = new ResetJob(client, timing);
        this.devices = new DeviceTaints(client);
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RESET_GPU;
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.GpuOfNode(client));
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Device gpu = Device.of(target);
        // A node someone else cordoned (maintenance, a person's doubt) stays cordoned after the reset: not ours to open.
        boolean othersFence = Pods.fenced(node(gpu.node)) && !cordonedByUs.test(gpu.node);
        Outcome fenced = cordon.apply(new Mitigation.Target(gpu.node, null), dryRun);
        if (!fenced.success()) return fenced;
        Optional<GpuDevices.Gpu> telemetry = gpus.read(gpu.node, gpu.index);
        List<Pod> holders = holders(gpu, telemetry);
        List<String> operands = pausable(node(gpu.node));
        Optional<String> gang = gangMember(holders);
        if (gang.isPresent() && (policy.get() == null || policy.get().wholeGangsOnly())) {
            return Outcome.failed(fenced.detail() + "; GPU " + gpu.index + " is held by " + gang.get() + ": moving it alone would stop"
                    + " part of the gang (limits.wholeGangsOnly); restart the group first, then reset the GPU", false);
        }
        if (dryRun) {
            return Outcome.done("dry run: " + fenced.detail() + "; would evict " + refs(holders) + ", pause " + operands
                    + " and ask the node agent to reset GPU " + gpu.index);
        }
        List<String> blocked = new ArrayList<>();
        for (Pod p : holders) {
            if (!Pods.evict(client, p, false, timing)) blocked.add(Pods.ref(p));
        }
        if (!blocked.isEmpty()) {
            return Outcome.failed(fenced.detail() + "; PodDisruptionBudgets still block " + blocked + " holding GPU " + gpu.index
                    + ": the GPU is not reset, the node stays cordoned, a person decides", false);
        }
        boolean moved = timing.until(timing.evictionTimeout(), () -> holders(gpu, Optional.empty()).isEmpty());
        if (!moved) {
            return Outcome.failed("pods still hold GPU " + gpu.index + " after eviction: " + refs(holders(gpu, Optional.empty()))
                    + "; the GPU is not reset, the node stays cordoned", false);
        }
        Policy p = policy.get();
        boolean byJob = p != null && "job".equals(p.resetMethod());
        Duration wait = p == null ? Duration.ofMinutes(5) : p.resetTimeout();
        Optional<String> marked = devices.mark(p == null ? DEFAULT_DRA : p.dra(), gpu.node, gpu.index);
        pause(gpu.node, operands);
        ResetJob.Answer answer;
        List<String> restored;
        try {
            answer = byJob ? resetJob.run(p, gpu.node, gpu.index, wait) : askAgent(gpu, wait);
        } catch (IllegalArgumentException e) {
            answer = new ResetJob.Answer(false, false, "the reset Job's template cannot be used: " + e.getMessage()
                    + "; fix repair.resetJob.template in the policy");
        } finally {
            // the operands come back whatever became of the reset: a node without its device plugin serves nothing
            restored = restore(gpu.node);
        }
        String said = answer.said();
        String steps = fenced.detail() + "; evicted " + refs(holders) + marked.map(m -> "; marked " + m).orElse("")
                + "; paused and restored " + restored;
        String who = byJob ? "the reset Job" : "the node agent";
        if (!answer.answered()) {
            return Outcome.failed(steps + "; " + who + " did not answer the reset of GPU " + gpu.index + " within "
                    + wait.toSeconds() + " s (" + (byJob ? said : "label " + REQUEST) + "): the node stays cordoned; check "
                    + (byJob ? "the Job's pod" : "the agent on " + gpu.node), false);
        }
        if (!answer.succeeded()) {
            return Outcome.failed(steps + "; " + who + " could not reset GPU " + gpu.index + ": " + said
                    + "; the node stays cordoned, a person reboots or replaces it", false);
        }
        Optional<String> sick = timing.until(timing.verifyTimeout(), () -> unhealthy(gpu).isEmpty()) ? Optional.empty()
                : unhealthy(gpu);
        if (sick.isPresent()) {
            return Outcome.failed(steps + "; reset answered \"" + said + "\" but " + sick.get() + ": the node stays cordoned", false);
        }
        marked.ifPresent(m -> devices.unmark(p == null ? DEFAULT_DRA : p.dra(), gpu.node, gpu.index));
        String done = steps + "; " + (byJob ? "reset Job" : "node agent") + ": " + said + "; GPU " + gpu.index + " healthy, XID cleared"
                + marked.map(m -> "; removed the DeviceTaintRule").orElse("");
        if (othersFence) {
            return Outcome.done(done + "; " + gpu.node + " stays cordoned: it was cordoned before the reset, not by acceltriage");
        }
        cordon.undo(new Mitigation.Target(gpu.node, null));
        return Outcome.done(done + "; uncordoned " + gpu.node);
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        Device gpu = Device.of(target);
        boolean back = timing.until(timing.verifyTimeout(), () -> {
            Node n = node(gpu.node);
            return n != null && (!Pods.fenced(n) || othersCordon(gpu.node)) && !labels(n).containsKey(REQUEST) && !annotations(n).containsKey(PAUSED)
                    && unhealthy(gpu).isEmpty();
        });
        if (back) return Outcome.done("GPU " + gpu.index + " of " + gpu.node + " is healthy and the node is in service");
        Node n = node(gpu.node);
        return Outcome.failed(n == null ? "node " + gpu.node + " is gone"
                : Pods.fenced(n) ? "node " + gpu.node + " is cordoned again" : unhealthy(gpu).orElse("the reset handshake is still on the node"),
                false);
    }

    /** The node is fenced, and not by this service's cordon-node: the reset leaves it so. */
    private boolean othersCordon(String node) {
        return !cordonedByUs.test(node);
    }

    /**
     * Why the GPU is not yet healthy, or empty: the device plugin advertises every GPU again
     * (allocatable = capacity) and, where telemetry reads, the XID gauge is clear.
     */
    private Optional<String> unhealthy(Device gpu) {
        Node n = node(gpu.node);
        if (n == null) return Optional.of("node " + gpu.node + " is gone");
        Integer capacity = count(n.getStatus().getCapacity(), GPU);
        Integer allocatable = count(n.getStatus().getAllocatable(), GPU);
        if (capacity != null && (allocatable == null || allocatable < capacity)) {
            return Optional.of(gpu.node + " advertises " + allocatable + " of " + capacity + " GPUs");
        }
        Optional<GpuDevices.Gpu> t = gpus.read(gpu.node, gpu.index);
        if (t.isPresent() && t.get().xid() != 0) {
            return Optional.of("GPU " + gpu.index + " still reports XID " + (long) t.get().xid());
        }
        return Optional.empty();
    }

    /** The node's workload pods holding the GPU: by KEP-4680 resource id (UUID or index strategy) or the exporter's pod labels. */
    private List<Pod> holders(Device gpu, Optional<GpuDevices.Gpu> telemetry) {
        String uuid = telemetry.map(GpuDevices.Gpu::uuid).orElse(null);
        List<String> named = telemetry.map(GpuDevices.Gpu::pods).orElse(List.of());
        return Pods.onNode(client, gpu.node).stream().filter(p -> !Pods.ownedByDaemonSet(p) && !Pods.mirror(p))
                .filter(p -> named.contains(Pods.ref(p)) || resourceIds(p).stream()
                        .anyMatch(id -> id.equals(uuid) || id.equals(String.valueOf(gpu.index))))
                .toList();
    }

    /** The first holder that belongs to a gang, as "pod ns/name of Kind ns/name". */
    private Optional<String> gangMember(List<Pod> holders) {
        Owners owners = new Owners(client);
        for (Pod p : holders) {
            Owners.Top top = owners.topOf(p);
            if (top != null && top.gang()) {
                return Optional.of("pod " + Pods.ref(p) + " of " + top.kind() + " " + top.namespace() + "/" + top.name());
            }
        }
        return Optional.empty();
    }

    static List<String> resourceIds(Pod p) {
        if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) return List.of();
        return p.getStatus().getContainerStatuses().stream()
                .flatMap(c -> Optional.ofNullable(c.getAllocatedResourcesStatus()).orElse(List.of()).stream())
                .filter(r -> GPU.equals(r.getName()))
                .map(ResourceStatus::getResources).filter(java.util.Objects::nonNull).flatMap(List::stream)
                .map(ResourceHealth::getResourceID).toList();
    }

    /** The operand labels that deploy something on this node now: the GPU operator removes those operands at "false". */
    private List<String> pausable(Node n) {
        List<String> out = new ArrayList<>();
        Map<String, String> labels = labels(n);
        List<String> operands = policy.get() == null ? Policy.DEFAULT_OPERANDS : policy.get().resetOperands();
        for (String o : operands) {
            String v = labels.get(DEPLOY + o);
            if (v != null && !"false".equals(v)) out.add(o);
        }
        return out;
    }

    private void pause(String node, List<String> operands) {
        client.nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            // Remember what was there once: a resumed reset must not record its own "false" as the value to restore.
            if (!annotations(n).containsKey(PAUSED)) {
                Map<String, String> was = new LinkedHashMap<>();
                for (String o : operands) was.put(o, labels(n).get(DEPLOY + o));
                b.editMetadata().addToAnnotations(PAUSED, String.join(",", was.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).toList())).endMetadata();
            }
            for (String o : operands) b.editMetadata().addToLabels(DEPLOY + o, "false").endMetadata();
            return b.build();
        });
    }

    /** The label handshake with the node agent: ask, wait for its answer, read its words. */
    private ResetJob.Answer askAgent(Device gpu, Duration wait) {
        request(gpu);
        boolean answered = timing.until(wait, () -> labels(node(gpu.node)).containsKey(STATE));
        Node answeredNode = node(gpu.node);
        // The agent's own sentence, without its full stop: it is quoted inside ours.
        String said = annotations(answeredNode).getOrDefault(MESSAGE, "").strip().replaceAll("\\.$", "");
        return new ResetJob.Answer(answered, "succeeded".equals(labels(answeredNode).get(STATE)), said);
    }

    private void request(Device gpu) {
        client.nodes().withName(gpu.node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            b.editMetadata().removeFromLabels(STATE).removeFromAnnotations(MESSAGE).addToLabels(REQUEST, String.valueOf(gpu.index))
                    .endMetadata();
            return b.build();
        });
    }

    /** Puts the operand labels back as they were and clears the handshake; returns the operands restored. */
    private List<String> restore(String node) {
        List<String> restored = new ArrayList<>();
        client.nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            String paused = annotations(n).get(PAUSED);
            if (paused != null && !paused.isEmpty()) {
                for (String kv : paused.split(",")) {
                    int eq = kv.indexOf('=');
                    b.editMetadata().addToLabels(DEPLOY + kv.substring(0, eq), kv.substring(eq + 1)).endMetadata();
                    restored.add(kv.substring(0, eq));
                }
            }
            b.editMetadata().removeFromAnnotations(PAUSED).removeFromAnnotations(MESSAGE).removeFromLabels(REQUEST)
                    .removeFromLabels(STATE).endMetadata();
            return b.build();
        });
        return restored;
    }

    private Node node(String name) {
        return client.nodes().withName(name).get();
    }

    private static Map<String, String> labels(Node n) {
        return n == null || n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }

    private static Map<String, String> annotations(Node n) {
        return n == null || n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
    }

    private static Integer count(Map<String, io.fabric8.kubernetes.api.model.Quantity> q, String resource) {
        return q == null || q.get(resource) == null ? null : q.get(resource).getNumericalAmount().intValue();
    }

    private static String refs(List<Pod> pods) {
        return pods.isEmpty() ? "no pods" : String.join(", ", pods.stream().map(Pods::ref).toList());
    }

    /** A reset-gpu target, NODE/GPU. */
    record Device(String node, int index) {
        static Device of(Mitigation.Target t) {
            return parse(t.name()).orElseThrow(() -> new IllegalArgumentException("reset-gpu needs NODE/GPU, got " + t.name()));
        }

        static Optional<Device> parse(String target) {
            int slash = target == null ? -1 : target.lastIndexOf('/');
            if (slash <= 0 || !target.substring(slash + 1).matches("\\d{1,2}")) return Optional.empty();
            return Optional.of(new Device(target.substring(0, slash), Integer.parseInt(target.substring(slash + 1))));
        }
    }
}
