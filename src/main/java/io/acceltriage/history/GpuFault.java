package io.acceltriage.history;

import java.time.Instant;

/**
 * One XID a platform source saw on one GPU. {@code gpu}: its index on the node, else {@code pci:ADDRESS}
 * from a kernel line; {@code uuid} when the source gave one (it names the GPU across a move). {@code process}: the pod
 * ({@code namespace/pod}) or kernel process ({@code pid/name}) it hit, {@code -} when none was named.
 * {@code source}: exporter, kernel (events and node conditions the node agents relay).
 */
public record GpuFault(String node, String gpu, String uuid, int xid, boolean fatal, String process, String source,
        String incidentId, Instant at) {

    /** Whether this fault is on the GPU {@code gpu} (an index or a UUID) of {@code node}. */
    public boolean on(String node, String gpu) {
        return gpu.equals(uuid) || (this.node.equals(node) && this.gpu.equals(gpu));
    }
}
