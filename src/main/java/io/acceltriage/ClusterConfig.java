package io.acceltriage;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "acceltriage.cluster")
public interface ClusterConfig {

    /** sandbox (ACCELTRIAGE_CLUSTER_MODE, the embedded default), kubeconfig or in-cluster. */
    @WithDefault("sandbox")
    Mode mode();

    /** Port of dcgm-exporter on each node, scraped directly at triage time (ACCELTRIAGE_CLUSTER_EXPORTER_PORT). */
    @WithDefault("9400")
    int exporterPort();

    enum Mode { SANDBOX, KUBECONFIG, IN_CLUSTER }
}
