package io.acceltriage.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The embedded default: a simulated GPU cluster started with the application when
 * {@code acceltriage.cluster.mode} is {@code sandbox}. The application's KubernetesClient comes from
 * {@link #client()} in that mode.
 */
@ApplicationScoped
public class Sandbox {

    private final LocalHttpPort port;
    private SimulatedCluster cluster;

    @Inject
    Sandbox(LocalHttpPort port) {
        this.port = port;
    }

    @PostConstruct
    void start() {
        cluster = SimulatedCluster.start();
    }

    @PreDestroy
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    public KubernetesClient client() {
        return cluster.client();
    }

    /** Where this service serves the node's simulated exporter. */
    public String exporterUrl(String node) {
        return "http://127.0.0.1:" + port.port() + "/sandbox/exporter/" + node + "/metrics";
    }

    public String exporterText(String node) {
        return cluster.exporterText(node);
    }

    public FiredAlert inject(Fault fault) {
        return cluster.inject(fault);
    }

    public void reset() {
        cluster.reset();
    }

    SimulatedCluster cluster() {
        return cluster;
    }
}
