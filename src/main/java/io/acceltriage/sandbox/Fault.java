package io.acceltriage.sandbox;

/**
 * A fault to inject into the simulated cluster. Which fields matter depends on the kind:
 * xid needs node, gpu (default 0) and xid; dbe-ecc, row-remap-failure and retired-pages need node and gpu;
 * device-plugin-crash, device-plugin-rollout, nvml-mismatch and node-not-ready need node; cuda-oom needs pod ("namespace/name").
 */
public record Fault(String kind, String node, Integer gpu, Integer xid, String pod) {

    public static Fault xid(String node, int gpu, int xid) {
        return new Fault("xid", node, gpu, xid, null);
    }

    public static Fault onNode(String kind, String node) {
        return new Fault(kind, node, null, null, null);
    }

    public static Fault onGpu(String kind, String node, int gpu) {
        return new Fault(kind, node, gpu, null, null);
    }

    public static Fault onPod(String kind, String namespacedPod) {
        return new Fault(kind, null, null, null, namespacedPod);
    }
}
