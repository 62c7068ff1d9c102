package io.acceltriage.evidence;

/**
 * Who could have written an evidence item. {@code PLATFORM}: the exporter DaemonSet's own pods, kernel
 * messages relayed by node agents (events in the platform's namespaces, node conditions), the device
 * plugin's health (allocatable, KEP-4680 status), node status, the scheduler. {@code TENANT}: what a
 * workload controls — its container logs, its containers' crashes, events written into its namespace,
 * a series served by any pod that is not the exporter DaemonSet's. Tenant text may raise suspicion and
 * escalate; fencing shared hardware needs a platform source. The collector may say more than the kind:
 * the same runtime error stopping the containers of two or more namespaces on one node is the node's
 * runtime speaking (one tenant cannot write another's pod status), so it reads those as the platform's.
 */
public enum Trust {
    PLATFORM, TENANT;

    /** The trust a fact has by its kind alone, when the collector had nothing more to say about who wrote it. */
    public static Trust of(Fact fact) {
        if (fact instanceof Facts.LogMatch l) return l.role().nodeAgent() ? PLATFORM : TENANT;
        if (fact instanceof Facts.ContainerState c) return c.role().nodeAgent() ? PLATFORM : TENANT;
        // The trainer writes its own checkpoint time: it may delay its own restart, never fence anything.
        if (fact instanceof Facts.GangCheckpoint) return TENANT;
        if (fact instanceof Facts.ClusterEvent e) {
            // An event in a workload's namespace may have been written by the workload itself.
            return e.namespace() == null || e.namespace().isEmpty() || "default".equals(e.namespace())
                    || "kube-system".equals(e.namespace()) ? PLATFORM : TENANT;
        }
        return PLATFORM;
    }
}
