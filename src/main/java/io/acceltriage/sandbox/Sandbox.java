package io.acceltriage.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The embedded default: a simulated GPU cluster started with the application when
 * {@code acceltriage.cluster.mode} is {@code sandbox}. The application's KubernetesClient comes from
 * {@link #client()} in that mode.
 */
@ApplicationScoped
public class Sandbox {

    private static final Logger LOG = Logger.getLogger(Sandbox.class);

    private final LocalHttpPort port;
    private SimulatedCluster cluster;

    @Inject
    Sandbox(LocalHttpPort port) {
        this.port = port;
    }

    @PostConstruct
    void start() {
        long began = System.nanoTime();
        cluster = SimulatedCluster.start();
        LOG.infof("sandbox cluster started in %d ms: Kubernetes API at %s", (System.nanoTime() - began) / 1_000_000,
                cluster.apiServer().url());
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
