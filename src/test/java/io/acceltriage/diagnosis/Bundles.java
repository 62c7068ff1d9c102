package io.acceltriage.diagnosis;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Fact;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.PodPlacement;
import io.acceltriage.evidence.PodRole;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Source;
import io.acceltriage.evidence.Workload;
import io.acceltriage.incident.Subject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Evidence bundles for unit tests, built the way the collectors would fill them: one fluent call per
 * observation, ids given in order ({@code E1}, {@code E2}, …), the time of the alerts fixed at {@link #AT}.
 *
 * <pre>{@code
 * EvidenceBundle b = Bundles.node("gpu-h100-03").holds(2, "ml", "train-0").xid(2, 79).podCrashLooping("ml", "train-0").build();
 * }</pre>
 *
 * Log lines are checked against the signature they claim (from {@code knowledge/log-signatures.yaml}),
 * so a fixture cannot cite a signature its line would not match. Public because the planner's tests
 * (package {@code agent}) build their bundles with it too.
 */
public final class Bundles {

    /** When the alerts fired. */
    public static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");

    private static final SignatureCatalogue SIGNATURES = SignatureCatalogue.load();

    private final Subject subject;
    private String node;
    private String pool = "train-h100";
    private boolean cordoned;
    private final List<Evidence> items = new ArrayList<>();
    private final List<PodPlacement> pods = new ArrayList<>();
    private final List<Workload> workloads = new ArrayList<>();
    private final List<Gap> gaps = new ArrayList<>();
    /** gpu index → namespace/pod holding it (dcgm-exporter's pod labels). */
    private final Map<Integer, String[]> holders = new HashMap<>();

    private Bundles(Subject subject, String node) {
        this.subject = subject;
        this.node = node;
    }

    /** An incident about a node. */
    public static Bundles node(String node) {
        return new Bundles(Subject.node(node), node);
    }

    /** An incident about a pod running on {@code node}. */
    public static Bundles pod(String namespace, String pod, String node) {
        return new Bundles(Subject.pod(namespace, pod), node);
    }

    /** An incident about a workload ({@code kindName} as "jobset/name"), whose node is {@code node} (null: spread). */
    public static Bundles workload(String namespace, String kindName, String node) {
        return new Bundles(new Subject(Subject.Kind.WORKLOAD, namespace, kindName), node);
    }

    /** The node could not be told (a pod gone, a workload spread over many nodes). */
    public Bundles noNode() {
        this.node = null;
        return this;
    }

    public Bundles pool(String pool) {
        this.pool = pool;
        return this;
    }

    public Bundles cordoned() {
        this.cordoned = true;
        return this;
    }

    // --- device metrics (dcgm-exporter, the AMD and TPU exporters) ---

    /** Every later metric of this GPU carries the pod that holds it, as dcgm-exporter labels it. */
    public Bundles holds(int gpu, String namespace, String pod) {
        holders.put(gpu, new String[] {namespace, pod});
        return this;
    }

    /** A new XID on a GPU: the gauge reads {@code code} now and 0 ten minutes ago. */
    public Bundles xid(int gpu, int code) {
        return metric("DCGM_FI_DEV_XID_ERRORS", gpu, code, 0.0, null);
    }

    /** An old XID: the gauge reads the same code now as ten minutes ago. */
    public Bundles xidUnchanged(int gpu, int code) {
        return metric("DCGM_FI_DEV_XID_ERRORS", gpu, code, (double) code, null);
    }

    /** dcgm-exporter's count of one XID on a GPU within its window (series label {@code xid}). */
    public Bundles xidCount(int gpu, int code, int count) {
        return metric("DCGM_EXP_XID_ERRORS_COUNT", gpu, count, null, String.valueOf(code));
    }

    /** A DCGM (or other exporter's) reading of a GPU with no history. */
    public Bundles dcgm(String metric, int gpu, double value) {
        return metric(metric, gpu, value, null, null);
    }

    /** A DCGM (or other exporter's) reading of a GPU and its value ten minutes earlier. */
    public Bundles dcgm(String metric, int gpu, double value, double tenMinutesAgo) {
        return metric(metric, gpu, value, tenMinutesAgo, null);
    }

    private Bundles metric(String metric, int gpu, double value, Double previous, String xid) {
        String[] holder = holders.get(gpu);
        String ns = holder == null ? null : holder[0];
        String pod = holder == null ? null : holder[1];
        String summary = node + " device " + gpu + " " + metric + " = " + value + (previous == null ? "" : " (10 min ago " + previous + ")");
        return add(Source.METRICS, summary, new Facts.MetricReading(node, String.valueOf(gpu), "GPU-" + gpu, ns, pod, metric, value,
                previous, xid));
    }

    /** An XID the fault history remembers on this node's GPU from an earlier incident, {@code process} the pod it hit. */
    public Bundles pastXid(int gpu, int code, String process, String incident, Instant at) {
        return add(Source.CLUSTER, "fault history: XID " + code + " on " + node + " GPU " + gpu + " at " + at,
                new Facts.PastXid(node, String.valueOf(gpu), "GPU-" + gpu, code, false, process, "exporter", incident, at));
    }

    // --- the node as the API server reports it ---

    /** Capacity, allocatable and the count the node's labels promise, of an accelerator resource. */
    public Bundles capacity(String resource, int capacity, int allocatable, int expected) {
        return add(Source.CLUSTER, node + " " + resource + ": capacity " + capacity + ", allocatable " + allocatable + ", expected " + expected,
                new Facts.AcceleratorCapacity(node, pool, resource, capacity, allocatable, expected));
    }

    /** {@code nvidia.com/gpu} capacity and allocatable on a node whose labels promise {@code capacity}. */
    public Bundles gpus(int capacity, int allocatable) {
        return capacity("nvidia.com/gpu", capacity, allocatable, capacity);
    }

    public Bundles condition(String type, String status, String reason, String message) {
        return add(Source.CLUSTER, node + " condition " + type + "=" + status + " (" + reason + ")",
                new Facts.NodeCondition(node, type, status, reason, message));
    }

    /** A taint on the node (the node lifecycle controller's unreachable/not-ready ones, a health agent's). */
    public Bundles taint(String key, String effect) {
        return add(Source.CLUSTER, node + " taint " + key + ":" + effect, new Facts.NodeTaint(node, key, null, effect));
    }

    /** A taint with a value on the node (the cluster autoscaler's scale-down writes the time it decided). */
    public Bundles taint(String key, String value, String effect) {
        return add(Source.CLUSTER, node + " taint " + key + "=" + value + ":" + effect, new Facts.NodeTaint(node, key, value, effect));
    }

    /** The node's deletion was asked for; {@code finalizers} (its provisioner's) drain it first. */
    public Bundles beingDeleted(String... finalizers) {
        return deletingFor(java.time.Duration.ofSeconds(150), finalizers);
    }

    /** The node's deletion was asked for that long before the alert. */
    public Bundles deletingFor(java.time.Duration since, String... finalizers) {
        return add(Source.CLUSTER, node + " is being deleted", new Facts.NodeDeletion(node, AT.minus(since), List.of(finalizers)));
    }

    /** The kubelet stopped posting status. */
    public Bundles notReady() {
        return condition("Ready", "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.");
    }

    public Bundles ready() {
        return condition("Ready", "True", "KubeletReady", "kubelet is posting ready status");
    }

    /** KEP-4680 allocatedResourcesStatus of a GPU a pod's container holds. */
    public Bundles deviceHealth(String namespace, String pod, String resourceId, String health) {
        return add(Source.CLUSTER, namespace + "/" + pod + "/main nvidia.com/gpu " + resourceId + " health " + health,
                new Facts.DeviceHealth(namespace, pod, "main", node, "nvidia.com/gpu", resourceId, health, null));
    }

    /** A DRA ResourceSlice device taint (KEP-5055). */
    public Bundles deviceTaint(String device, String key, String effect) {
        return add(Source.CLUSTER, node + " DRA device " + device + " taint " + key + ":" + effect,
                new Facts.DeviceTaint(node, device, key, null, effect));
    }

    // --- pods and their containers ---

    /** A workload container in CrashLoopBackOff after failing with exit code 1. */
    public Bundles podCrashLooping(String namespace, String pod) {
        return container(namespace, pod, "main", PodRole.WORKLOAD, "waiting", "CrashLoopBackOff", 6, 1, "Error", false);
    }

    /** A workload container that was last terminated for {@code lastReason} (OOMKilled, …) and restarted. */
    public Bundles podTerminated(String namespace, String pod, String lastReason, int exitCode) {
        return container(namespace, pod, "main", PodRole.WORKLOAD, "waiting", "CrashLoopBackOff", 3, exitCode, lastReason, false);
    }

    /** A workload container that has not started and waits for {@code reason} (ImagePullBackOff, …). */
    public Bundles podWaiting(String namespace, String pod, String reason) {
        return container(namespace, pod, "main", PodRole.WORKLOAD, "waiting", reason, 0, null, null, false);
    }

    /**
     * A workload container the runtime cannot start, the runtime's error in its status ({@code message}); {@code trust}
     * as the collector gives it (the platform's when the same error stops other workloads' containers on the node).
     */
    public Bundles podCannotStart(String namespace, String pod, String message, io.acceltriage.evidence.Trust trust) {
        return add(Source.CLUSTER, namespace + "/" + pod + "/main waiting RunContainerError, 6 restarts",
                new Facts.ContainerState(namespace, pod, "main", node, PodRole.WORKLOAD, "waiting", "RunContainerError", 6, 128, "StartError",
                        false, message), trust);
    }

    /** A pod the node's kubelet refused at admission (phase Failed, {@code reason} in its status). */
    public Bundles rejected(String namespace, String pod, String reason, String message) {
        return add(Source.CLUSTER, namespace + "/" + pod + " rejected by the kubelet of " + node + ": " + reason,
                new Facts.PodRejected(namespace, pod, node, reason, message));
    }

    /** A pod the scheduler has not placed, of workload {@code workload} ("namespace/name", or null). */
    public Bundles pending(String namespace, String pod, String reason, String message, String workload) {
        return add(Source.CLUSTER, namespace + "/" + pod + " pending: " + reason + ": " + message,
                new Facts.PodPending(namespace, pod, reason, message, workload));
    }

    /** A node label a node agent set. */
    public Bundles nodeLabel(String key, String value) {
        return add(Source.CLUSTER, node + " label " + key + "=" + value, new Facts.NodeLabel(node, key, value));
    }

    /** This node as one host of slice pool {@code pool}: its chips, and how many of the slice's hosts have all theirs. */
    public Bundles sliceHost(String pool, int capacity, int allocatable, int hosts, int wholeHosts) {
        return add(Source.CLUSTER, "slice pool " + pool + ": " + node + " advertises " + allocatable + " of " + capacity + " google.com/tpu",
                new Facts.SliceHost(node, pool, "4x4", "google.com/tpu", capacity, allocatable, hosts, wholeHosts));
    }

    /** A node agent (device plugin, exporter, driver) in CrashLoopBackOff. */
    public Bundles agentCrashLooping(PodRole role, String namespace, String pod) {
        return container(namespace, pod, role.name().toLowerCase().replace('_', '-'), role, "waiting", "CrashLoopBackOff", 9, 1, "Error",
                false);
    }

    private Bundles container(String namespace, String pod, String container, PodRole role, String state, String reason,
            int restarts, Integer lastExit, String lastReason, boolean ready) {
        return add(Source.CLUSTER, namespace + "/" + pod + "/" + container + " " + state + " " + reason + ", " + restarts + " restarts",
                new Facts.ContainerState(namespace, pod, container, node, role, state, reason, restarts, lastExit, lastReason, ready, null));
    }

    // --- events ---

    /** An event about the node, seen at {@code lastSeen}. */
    public Bundles nodeEvent(String reason, String message, Instant lastSeen) {
        return add(Source.EVENTS, "Node " + node + ": Warning " + reason + ": " + message,
                new Facts.ClusterEvent(null, "Node", node, "Warning", reason, message, 1, lastSeen));
    }

    /** A kernel XID line as Node Problem Detector relays it, as a node event at the time of the alert. */
    public Bundles kernelXid(int code, String detail) {
        return nodeEvent("XidError", "NVRM: Xid (PCI:0000:3b:00): " + code + ", pid=4242, name=python, " + detail, AT);
    }

    /**
     * An event about the node written into a workload's namespace (a tenant's service account can write
     * one naming any component): the tenant's word, not a node agent's.
     */
    public Bundles nodeEventWrittenBy(String tenantNamespace, String reason, String message) {
        return add(Source.EVENTS, "Node " + node + ": Warning " + reason + ": " + message + " [written in namespace " + tenantNamespace + "]",
                new Facts.ClusterEvent(null, "Node", node, "Warning", reason, message, 1, AT), io.acceltriage.evidence.Trust.TENANT);
    }

    /** A new XID served by a pod that is not the exporter DaemonSet's (a look-alike exporter). */
    public Bundles xidFromALookAlikeExporter(int gpu, int code) {
        return add(Source.METRICS, node + " device " + gpu + " DCGM_FI_DEV_XID_ERRORS = " + code + " (served by a look-alike exporter)",
                new Facts.MetricReading(node, String.valueOf(gpu), "GPU-" + gpu, null, null, "DCGM_FI_DEV_XID_ERRORS", code, 0.0, null),
                io.acceltriage.evidence.Trust.TENANT);
    }

    /** An event about a pod. */
    public Bundles podEvent(String namespace, String pod, String reason, String message) {
        return add(Source.EVENTS, "Pod " + namespace + "/" + pod + ": Warning " + reason + ": " + message,
                new Facts.ClusterEvent(namespace, "Pod", pod, "Warning", reason, message, 1, AT));
    }

    // --- logs ---

    /** A workload container's log line matching a known signature. */
    public Bundles log(String namespace, String pod, String signature, String line) {
        return logLine(namespace, pod, "main", PodRole.WORKLOAD, signature, line);
    }

    /** A node agent's own log line matching a known signature. */
    public Bundles agentLog(PodRole role, String namespace, String pod, String signature, String line) {
        return logLine(namespace, pod, role.name().toLowerCase().replace('_', '-'), role, signature, line);
    }

    private Bundles logLine(String namespace, String pod, String container, PodRole role, String signature, String line) {
        SignatureCatalogue.Signature s = SIGNATURES.byId(signature)
                .orElseThrow(() -> new IllegalArgumentException("no signature '" + signature + "' in knowledge/log-signatures.yaml"));
        if (!Pattern.compile(s.pattern()).matcher(line).find()) {
            throw new IllegalArgumentException("the line '" + line + "' does not match signature " + signature + " (" + s.pattern() + ")");
        }
        if (s.agentOnly() && !role.nodeAgent()) {
            throw new IllegalArgumentException("signature " + signature + " counts only in node agents' logs");
        }
        return add(Source.LOGS, namespace + "/" + pod + "/" + container + ": " + line,
                new Facts.LogMatch(namespace, pod, container, true, role, signature, line));
    }

    // --- what could not be read ---

    /** A source that did not answer. */
    public Bundles gap(Source source, String reason) {
        gaps.add(new Gap(source, reason));
        return this;
    }

    /** A source that answered that the thing is not there. */
    public Bundles absent(Source source, String reason) {
        gaps.add(Gap.absent(source, reason));
        return this;
    }

    // --- topology: pods on the node and their workloads ---

    /** A pod with no controller (nothing would recreate it). */
    public Bundles barePod(String namespace, String pod) {
        pods.add(new PodPlacement(namespace, pod, node, PodRole.WORKLOAD, 1, null, "registry.example/app:1", false));
        return this;
    }

    /** A pod of a plain (neither gang nor serving) workload, such as a Job. */
    public Bundles batch(String kind, String namespace, String name, String... podsOnNode) {
        return workload(kind, namespace, name, false, false, null, null, podsOnNode);
    }

    /** The members of a gang (JobSet, PyTorchJob, LeaderWorkerSet, …) that run on the node. */
    /** The gang's trainer last checkpointed {@code secondsAgo} before the triage, holding {@code gpus} GPUs (its annotation). */
    public Bundles checkpoint(String kind, String namespace, String name, long secondsAgo, int gpus) {
        return add(Source.CLUSTER, kind + " " + namespace + "/" + name + " last checkpointed " + secondsAgo + " s ago",
                new Facts.GangCheckpoint(namespace, name, kind, Instant.parse("2026-11-30T12:00:00Z").minusSeconds(secondsAgo), secondsAgo,
                        gpus, "annotation acceltriage.io/last-checkpoint"));
    }

    public Bundles gang(String kind, String namespace, String name, String... membersOnNode) {
        return workload(kind, namespace, name, true, false, null, null, membersOnNode);
    }

    /** A gang with one member on the node and one on {@code otherNode} (a workload's alert spans its nodes). */
    public Bundles gangAcross(String kind, String namespace, String name, String memberHere, String otherNode, String memberThere) {
        pods.add(new PodPlacement(namespace, memberHere, node, PodRole.WORKLOAD, 1, namespace + "/" + name, "registry.example/" + name + ":1", true));
        pods.add(new PodPlacement(namespace, memberThere, otherNode, PodRole.WORKLOAD, 1, namespace + "/" + name, "registry.example/" + name + ":1",
                true));
        workloads.add(new Workload(kind, namespace, name, true, false, List.of(memberHere), List.of(node, otherNode), null, null));
        return this;
    }

    /** Serving replicas (Deployment, StatefulSet) on the node, of a workload with that many replicas. */
    public Bundles serving(String kind, String namespace, String name, int replicas, int available, String... podsOnNode) {
        return workload(kind, namespace, name, false, true, replicas, available, podsOnNode);
    }

    private Bundles workload(String kind, String namespace, String name, boolean gang, boolean serving, Integer replicas,
            Integer available, String... podsOnNode) {
        for (String p : podsOnNode) {
            pods.add(new PodPlacement(namespace, p, node, PodRole.WORKLOAD, 1, namespace + "/" + name, "registry.example/" + name + ":1", true));
        }
        List<String> nodes = node == null ? List.of() : List.of(node);
        workloads.add(new Workload(kind, namespace, name, gang, serving, Arrays.asList(podsOnNode), nodes, replicas, available));
        return this;
    }

    /** The last workload also runs on these nodes (a gang's or a deployment's other members). */
    public Bundles alsoOn(String... otherNodes) {
        Workload w = workloads.remove(workloads.size() - 1);
        List<String> nodes = new java.util.ArrayList<>(w.nodes());
        nodes.addAll(Arrays.asList(otherNodes));
        workloads.add(new Workload(w.kind(), w.namespace(), w.name(), w.gang(), w.serving(), w.podsOnNode(), List.copyOf(nodes), w.replicas(),
                w.availableReplicas()));
        return this;
    }

    /** A workload's own per-pod series (a serving replica's queue, a rank's throughput) on a node: the tenant's evidence. */
    public Bundles tenantReading(String onNode, String namespace, String pod, String metric, double value) {
        return add(Source.METRICS, onNode + " " + metric + " = " + value + " [" + namespace + "/" + pod + "]",
                new Facts.MetricReading(onNode, null, null, namespace, pod, metric, value, null, null), io.acceltriage.evidence.Trust.TENANT);
    }

    /** The node's accelerator software version label ({@code label}) behind the one {@code peers} other nodes of its pool carry. */
    public Bundles behindPool(String label, String value, String poolValue, int peers) {
        return add(Source.CLUSTER, node + " label " + label + "=" + value + " while " + peers + " other nodes of pool " + pool + " carry " + poolValue,
                new Facts.BehindPool(node, pool, label, value, poolValue, peers));
    }

    /** This node offers none of {@code what} while {@code offeredBy} other nodes offer theirs; {@code pod} waits for it. */
    public Bundles unoffered(String what, int offeredBy, String pod) {
        return add(Source.CLUSTER, node + " offers no " + what + " while " + offeredBy + " other nodes offer theirs; " + pod + " waits for it",
                new Facts.Unoffered(node, pool, what, offeredBy, pod));
    }

    /** A node-agent DaemonSet's new revision, read from its ControllerRevisions (the platform's word). */
    public Bundles rollout(String namespace, String daemonSet, Instant created) {
        String summary = "DaemonSet " + namespace + "/" + daemonSet + " revision 2 created " + created;
        return add(Source.CLUSTER, summary, new Facts.ClusterEvent(namespace, "DaemonSet", daemonSet, "Normal", "NewRevision", summary, 1, created),
                io.acceltriage.evidence.Trust.PLATFORM);
    }

    /** A node agent (device plugin, exporter, driver) in CrashLoopBackOff, read as the platform's (its DaemonSet's pod). */
    public Bundles agentCrashLoopingAsPlatform(PodRole role, String namespace, String pod) {
        return add(Source.CLUSTER, namespace + "/" + pod + " waiting CrashLoopBackOff", new Facts.ContainerState(namespace, pod,
                role.name().toLowerCase().replace('_', '-'), node, role, "waiting", "CrashLoopBackOff", 9, 1, "Error", false, null),
                io.acceltriage.evidence.Trust.PLATFORM);
    }

    /** A node agent's pod (DaemonSet-owned) on another node {@code on}. */
    public Bundles agentPodOn(PodRole role, String namespace, String pod, String on) {
        pods.add(new PodPlacement(namespace, pod, on, role, 0, null, "nvcr.io/nvidia/gpu-feature-discovery:v0.17.1", true));
        return this;
    }

    /** A node agent's pod (DaemonSet-owned) on the node. */
    public Bundles agentPod(PodRole role, String namespace, String pod) {
        pods.add(new PodPlacement(namespace, pod, node, role, 0, null, "nvcr.io/nvidia/k8s-device-plugin:v0.17.1", true));
        return this;
    }

    private Bundles add(Source source, String summary, Fact fact) {
        return add(source, summary, fact, null);
    }

    /** {@code trust} null: the trust the fact has by its kind, as the collectors give it. */
    private Bundles add(Source source, String summary, Fact fact, io.acceltriage.evidence.Trust trust) {
        items.add(new Evidence("E" + (items.size() + 1), source, summary, fact, trust));
        return this;
    }

    /** The id the last observation got. */
    public String lastId() {
        if (items.isEmpty()) throw new IllegalStateException("no evidence yet");
        return items.get(items.size() - 1).id();
    }

    public EvidenceBundle build() {
        return new EvidenceBundle(subject, AT, node, pool, cordoned, List.copyOf(items), List.copyOf(pods), List.copyOf(workloads),
                List.copyOf(gaps), List.of("test fixture"));
    }

    /** The id of the one item of a bundle holding a fact of this type. */
    public static String idOf(EvidenceBundle b, Class<? extends Fact> type) {
        List<Evidence> of = b.items().stream().filter(e -> type.isInstance(e.fact())).toList();
        if (of.size() != 1) {
            throw new IllegalArgumentException("expected one " + type.getSimpleName() + " in the bundle, found " + of.size());
        }
        return of.get(0).id();
    }
}
