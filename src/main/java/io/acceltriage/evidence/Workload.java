package io.acceltriage.evidence;

import java.util.List;

/**
 * A workload with pods on the subject node: its top owner, whether it is a gang (restarted only
 * whole), whether it serves, and where its pods run.
 */
public record Workload(String kind, String namespace, String name, boolean gang, boolean serving,
        List<String> podsOnNode, List<String> nodes, Integer replicas, Integer availableReplicas) {

    public String ref() {
        return namespace + "/" + name;
    }
}
