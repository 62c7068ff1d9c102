package io.acceltriage.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The connection to one API server (the live cluster, the sandbox, a replayed scenario's mock), as the
 * stages above the cluster pass it around without speaking the client's types: only the packages that
 * read or change the cluster (cluster, evidence, action, sandbox, scenario, the wiring) open it.
 */
public record KubeApi(KubernetesClient client, ClusterReads reads) {

    /** Every read a request to the API server (replay, tests). */
    public KubeApi(KubernetesClient client) {
        this(client, ClusterReads.direct(client));
    }

    /** Reads through the watched view (or straight, when it is off); writes through the client. */
    public KubeApi(ClusterReads reads) {
        this(reads.client(), reads);
    }

    /** What the policy reads of this cluster: pools, opt-outs, workloads. */
    public ClusterFacts census(List<String> poolLabels, List<String> acceleratorResources) {
        return new PoolCensus(reads, poolLabels, acceleratorResources);
    }
}
