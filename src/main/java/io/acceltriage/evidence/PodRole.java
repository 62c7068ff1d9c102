package io.acceltriage.evidence;

/**
 * Why a pod matters to triage: a workload, or one of the node's accelerator agents. {@code OPERAND}: another agent of
 * the node's accelerator stack (the MIG manager, a DRA kubelet plugin, a network device plugin): the platform's, but
 * not the device plugin a node-agent restart restarts.
 */
public enum PodRole {
    WORKLOAD, DEVICE_PLUGIN, EXPORTER, DRIVER, OPERAND;

    public boolean nodeAgent() {
        return this != WORKLOAD;
    }
}
