package io.acceltriage.evidence;

/** Why a pod matters to triage: a workload, or one of the node's accelerator agents. */
public enum PodRole {
    WORKLOAD, DEVICE_PLUGIN, EXPORTER, DRIVER;

    public boolean nodeAgent() {
        return this != WORKLOAD;
    }
}
