package io.acceltriage.cluster;

import java.util.Map;

/**
 * A workload as the engine weighs it: a gang restarts whole; a serving workload keeps {@code needed}
 * replicas ready (its PodDisruptionBudget's minAvailable, else its replica count).
 */
public record WorkloadFacts(String kind, String namespace, String name, boolean gang, boolean serving, int replicas,
        int ready, int needed, boolean spareCapacity, Map<String, String> labels) {

    public String ref() {
        return namespace + "/" + name;
    }
}
