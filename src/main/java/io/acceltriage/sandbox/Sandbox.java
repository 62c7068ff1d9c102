package io.acceltriage.sandbox;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
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
    private final Duration latency;
    /** How often the simulated pretraining gang checkpoints (acceltriage.sandbox.checkpoint-every). */
    private final Duration checkpointEvery;
    private final int scaleNodes;
    private final int scalePods;
    private SimulatedCluster cluster;
    private KubernetesClient client;
    private final java.util.List<KubernetesClient> extraClients = new java.util.ArrayList<>();
    private volatile java.nio.file.Path kubeconfig;

    /**
     * @param latency added to every request the service makes of the simulated API server and its
     *     exporters, to see how triage behaves when its evidence sources are slow (benchmarks, demos)
     */
    @Inject
    Sandbox(LocalHttpPort port, @ConfigProperty(name = "acceltriage.sandbox.latency", defaultValue = "0s") Duration latency,
            @ConfigProperty(name = "acceltriage.sandbox.scale-nodes", defaultValue = "0") int scaleNodes,
            @ConfigProperty(name = "acceltriage.sandbox.scale-pods", defaultValue = "0") int scalePods,
            @ConfigProperty(name = "acceltriage.sandbox.checkpoint-every", defaultValue = "5m") Duration checkpointEvery) {
        this.checkpointEvery = checkpointEvery;
        this.port = port;
        this.latency = latency;
        this.scaleNodes = scaleNodes;
        this.scalePods = scalePods;
    }

    @PostConstruct
    void start() {
        long began = System.nanoTime();
        cluster = SimulatedCluster.start();
        if (scaleNodes > 0) {
            cluster.seedAtScale(scaleNodes, scalePods);
            LOG.infof("sandbox: %d more nodes and %d more pods seeded in pool and namespace \"scale\" (acceltriage.sandbox.scale-nodes, scale-pods)",
                    scaleNodes, scalePods);
        }
        client = latency.isZero() ? cluster.client() : slowed(cluster.client(), latency);
        cluster.checkpointEvery(checkpointEvery);
        LOG.infof("sandbox cluster started in %d ms: Kubernetes API at %s", (System.nanoTime() - began) / 1_000_000,
                cluster.apiServer().url());
    }

    /**
     * Writes {@link SandboxKubeconfig} into the data folder once the service listens (its exporters are
     * served on the service's port), and says where: other processes reach this sandbox through it.
     */
    void writeKubeconfig(java.nio.file.Path file) {
        int listening = -1;
        for (int i = 0; i < 600 && listening < 0; i++) {
            try {
                listening = port.port();
            } catch (IllegalStateException notYet) {
                pause(Duration.ofMillis(100));
            }
        }
        if (listening < 0) {
            LOG.warn("sandbox: the HTTP port was not known within 60 s; no kubeconfig written");
            return;
        }
        try {
            SandboxKubeconfig.write(file, cluster.apiServer().url(),
                    "http://127.0.0.1:" + listening + "/sandbox/exporter/{node}/metrics");
            kubeconfig = file;
            LOG.infof("sandbox: kubeconfig of its simulated API server written to %s"
                    + " (java -jar target/quarkus-app/quarkus-run.jar investigate --kubeconfig %s --node NAME; kubectl --kubeconfig %s get nodes)",
                    file, file, file);
        } catch (java.io.IOException e) {
            LOG.warnf("sandbox: could not write its kubeconfig to %s: %s", file, e.getMessage());
        }
    }

    @PreDestroy
    void stop() {
        extraClients.forEach(KubernetesClient::close);
        if (kubeconfig != null) {
            try {
                java.nio.file.Files.deleteIfExists(kubeconfig);
            } catch (java.io.IOException e) {
                LOG.debugf("sandbox kubeconfig %s not removed: %s", kubeconfig, e.getMessage());
            }
        }
        if (client != null && cluster != null && client != cluster.client()) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    public KubernetesClient client() {
        return client;
    }

    /** Holds the simulated API server's requests as {@code gate} says (tests); {@link RequestGate#OPEN} lets all through. */
    public void gate(RequestGate gate) {
        cluster.apiServer().gate(gate);
    }

    /** What {@link #client()} and the exporter endpoints add to each request; zero unless configured. */
    public Duration latency() {
        return latency;
    }

    /**
     * A client like {@link #client()} (slowed as it is) that also passes each request through the
     * caller's interceptor: the service hears its own writes this way. Closed with the sandbox.
     */
    public synchronized KubernetesClient client(String name, Interceptor interceptor) {
        KubernetesClient observed = build(cluster.client(), latency, Map.of(name, interceptor));
        extraClients.add(observed);
        return observed;
    }

    /** The fault injector keeps the fast client: only the service's reads and writes are slowed. */
    private static KubernetesClient slowed(KubernetesClient fast, Duration latency) {
        LOG.infof("sandbox: every API request and exporter read waits %d ms (acceltriage.sandbox.latency)", latency.toMillis());
        return build(fast, latency, Map.of());
    }

    /** Requests the service's clients made of the simulated API server (a watch counts once, when opened). */
    public long serviceRequests() {
        return SERVICE_REQUESTS.get();
    }

    private static final java.util.concurrent.atomic.AtomicLong SERVICE_REQUESTS = new java.util.concurrent.atomic.AtomicLong();

    private static KubernetesClient build(KubernetesClient fast, Duration latency, Map<String, Interceptor> more) {
        return new KubernetesClientBuilder().withConfig(fast.getConfiguration()).withHttpClientBuilderConsumer(b -> {
            b.addOrReplaceInterceptor("sandbox-count", new Interceptor() {
                @Override
                public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                    SERVICE_REQUESTS.incrementAndGet();
                }
            });
            if (!latency.isZero()) {
                b.addOrReplaceInterceptor("sandbox-latency", new Interceptor() {
                    @Override
                    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                        LOG.debugf("slowed %s %s", request.method(), request.uri());
                        pause(latency);
                    }
                });
            }
            more.forEach(b::addOrReplaceInterceptor);
        }).build();
    }

    static void pause(Duration latency) {
        if (latency.isZero()) return;
        try {
            Thread.sleep(latency.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Where this service serves the node's simulated exporter. */
    /** The node's simulated exporter; null for a name that is no Kubernetes name (it would leave the exporter's path). */
    public String exporterUrl(String node) {
        if (!io.acceltriage.config.KubernetesNames.isName(node)) return null;
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

    /** See {@link SimulatedCluster#rollOut}. */
    public java.util.Map<String, Object> rollOut(String daemonSet, String image, boolean broken) {
        return cluster.rollOut(daemonSet, image, broken);
    }

    SimulatedCluster cluster() {
        return cluster;
    }
}
