package io.acceltriage.evidence;

/** A pod, the node it runs on, and its workload (null when it has no controller). */
public record PodPlacement(String namespace, String name, String node, PodRole role, int accelerators,
        String workloadRef, String image, boolean controlled) {

    public String ref() {
        return namespace + "/" + name;
    }
}
