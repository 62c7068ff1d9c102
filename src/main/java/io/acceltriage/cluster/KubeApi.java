package io.acceltriage.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The connection to one API server (the live cluster, the sandbox, a replayed scenario's mock), as the
 * stages above the cluster pass it around without speaking the client's types: only the packages that
 * read or change the cluster (cluster, evidence, action, sandbox, scenario, the wiring) open it.
 */
public record KubeApi(KubernetesClient client) {

    /** What the policy reads of this cluster: pools, opt-outs, workloads. */
    public ClusterFacts census(List<String> poolLabels, List<String> acceleratorResources) {
        return new PoolCensus(client, poolLabels, acceleratorResources);
    }
}
