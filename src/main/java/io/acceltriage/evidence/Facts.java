package io.acceltriage.evidence;

/** The kinds of fact evidence can hold. */
public final class Facts {
    private Facts() {}

    /** One device metric sample, with its value ten minutes earlier when the source can tell. */
    public record MetricReading(String node, String device, String uuid, String namespace, String pod,
            String metric, double value, Double previous, String xid) implements Fact {
        public boolean changed() {
            return previous != null && previous != value;
        }
    }

    /** Capacity vs allocatable of an accelerator resource on a node (the device plugin lowers allocatable). */
    public record AcceleratorCapacity(String node, String pool, String resource, int capacity, int allocatable,
            int expected) implements Fact {}

    public record NodeCondition(String node, String type, String status, String reason, String message) implements Fact {}

    public record NodeTaint(String node, String key, String value, String effect) implements Fact {}

    /**
     * A Node whose deletion was asked for ({@code metadata.deletionTimestamp} set) and waits on {@code finalizers} (its
     * provisioner's, as Karpenter's {@code karpenter.sh/termination}, draining it first): the node is leaving on purpose.
     */
    public record NodeDeletion(String node, java.time.Instant requested, java.util.List<String> finalizers) implements Fact {}

    /** KEP-4680 allocatedResourcesStatus of one device held by a container. */
    public record DeviceHealth(String namespace, String pod, String container, String node, String resource,
            String resourceId, String health, String message) implements Fact {}

    /**
     * A container that is not simply running and ready; {@code role} tells workload from node agent. {@code message}: the
     * kubelet's word on why it waits (the runtime's error when it cannot start it), null when it gave none.
     */
    public record ContainerState(String namespace, String pod, String container, String node, PodRole role,
            String state, String reason, int restarts, Integer lastExitCode, String lastReason, boolean ready, String message)
            implements Fact {}

    /** A pod the scheduler has not placed; {@code workload} its top owner's {@code namespace/name} when known. */
    public record PodPending(String namespace, String pod, String reason, String message, String workload) implements Fact {
        public PodPending(String namespace, String pod, String reason, String message) {
            this(namespace, pod, reason, message, null);
        }
    }

    /**
     * A pod the kubelet of {@code node} refused to run after the scheduler placed it there (its admission: phase Failed,
     * {@code reason} the admission error, as TopologyAffinityError, {@code message} "Pod was rejected: …"). The pod's
     * status is the kubelet's to write, and a refused pod stays so: a state, not news that ages.
     */
    public record PodRejected(String namespace, String pod, String node, String reason, String message) implements Fact {}

    /** A Kubernetes event; {@code lastSeen} may be null when the event carries no time. */
    public record ClusterEvent(String namespace, String objectKind, String objectName, String type, String reason,
            String message, int count, java.time.Instant lastSeen) implements Fact {}

    /**
     * A log line that matched a known signature. The line is untrusted text from a workload: it is
     * shown and cited, never obeyed.
     */
    public record LogMatch(String namespace, String pod, String container, boolean previous, PodRole role,
            String signature, String line) implements Fact {}

    /** A node label a node agent sets to report state (the MIG manager's {@code nvidia.com/mig.config.state}, …). */
    public record NodeLabel(String node, String key, String value) implements Fact {}

    /**
     * One host of a multi-host slice (its node pool) short of accelerators, beside how many of the
     * slice's hosts advertise all of theirs: a slice fails and recovers as one unit.
     */
    public record SliceHost(String node, String pool, String topology, String resource, int capacity, int allocatable,
            int hosts, int wholeHosts) implements Fact {}

    /**
     * A node whose accelerator software version label ({@code label}, a number) is below the one most of its pool's
     * other nodes carry: {@code value} its own, {@code poolValue} the pool's, {@code peers} how many nodes carry that.
     */
    public record BehindPool(String node, String pool, String label, String value, String poolValue, int peers) implements Fact {}

    /**
     * A node that offers none of what a pending pod waits for ({@code what}: an extended resource at 0, a DRA driver's
     * ResourceSlice without devices) while {@code offeredBy} other nodes offer theirs; {@code pod} the one waiting.
     */
    public record Unoffered(String node, String pool, String what, int offeredBy, String pod) implements Fact {}

    /** DRA ResourceSlice device taint (KEP-5055). */
    public record DeviceTaint(String node, String device, String key, String value, String effect) implements Fact {}

    /**
     * An XID a platform source reported on this GPU in an earlier incident, from the fault history:
     * {@code gpu} its index (or {@code pci:ADDRESS}), {@code process} the pod or kernel process it hit.
     */
    public record PastXid(String node, String gpu, String uuid, int xid, boolean fatal, String process, String source,
            String incident, java.time.Instant at) implements Fact {}

    /**
     * When a training gang last checkpointed, as its trainer reports it: {@code source} names where it was read
     * (the annotation key or the tool); {@code at} null when only an age was read (a metric);
     * {@code secondsSince} as of the triage; {@code gpus} the accelerators the gang's pods hold.
     */
    public record GangCheckpoint(String namespace, String workload, String kind, java.time.Instant at, long secondsSince,
            int gpus, String source) implements Fact {}
}
