package io.acceltriage.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

@ConfigMapping(prefix = "acceltriage.cluster")
public interface ClusterConfig {

    /** sandbox (ACCELTRIAGE_CLUSTER_MODE, the embedded default), kubeconfig or in-cluster. */
    @WithDefault("sandbox")
    Mode mode();

    /**
     * Port of the device-metrics exporter on each node, scraped directly at triage time
     * (ACCELTRIAGE_CLUSTER_EXPORTER_PORT). Unset: the port the exporter pod declares (dcgm-exporter
     * 9400, AMD's device-metrics-exporter 5000), else 9400. Set: this port, whatever the pod declares.
     */
    java.util.Optional<Integer> exporterPort();

    /**
     * The longest one request to a real API server may take (ACCELTRIAGE_CLUSTER_REQUEST_TIMEOUT): a
     * hung API server then costs a triage this long per read, never the worker.
     */
    @WithDefault("10s")
    java.time.Duration requestTimeout();

    /**
     * Retries of a request that failed with 5xx or no connection, with backoff from 100 ms doubling
     * (ACCELTRIAGE_CLUSTER_REQUEST_RETRIES). Kept low: the executor retries actions itself, and a
     * read that still fails becomes a gap in the evidence.
     */
    @WithDefault("2")
    int requestRetries();

    enum Mode { SANDBOX, KUBECONFIG, IN_CLUSTER }
}
