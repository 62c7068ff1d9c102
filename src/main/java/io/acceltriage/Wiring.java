package io.acceltriage;

import io.acceltriage.action.Decisions;
import io.acceltriage.action.Executor;
import io.acceltriage.action.TelemetryGpus;
import io.acceltriage.action.Leadership;
import io.acceltriage.action.LeaseLeadership;
import io.acceltriage.sandbox.SandboxKubeconfig;
import io.acceltriage.action.PolicyApprovals;
import io.acceltriage.action.StoredHistory;
import io.acceltriage.action.Timing;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.cluster.ClusterReads;
import io.acceltriage.cluster.ClusterWrites;
import io.acceltriage.cluster.KubeApi;
import io.acceltriage.cluster.Membership;
import io.acceltriage.cluster.Nodes;
import io.acceltriage.cluster.WatchedCluster;
import io.acceltriage.config.ClusterConfig;
import io.acceltriage.evidence.ExporterScrape;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.PrometheusConfig;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Rollouts;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.acceltriage.policy.Breaker;
import io.acceltriage.policy.BreakerControl;
import io.acceltriage.policy.CircuitBreakerControl;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicySource;
import io.acceltriage.policy.StoredBreaker;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.store.Database;
import io.acceltriage.triage.Responder;
import io.acceltriage.triage.ResponderFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** The one place where the stages are wired to each other and to the world (a real cluster or the sandbox). */
@Singleton
class Wiring {

    private static final Logger LOG = Logger.getLogger(Wiring.class);

    @Produces
    @Singleton
    KubernetesClient kubernetesClient(ClusterConfig config, Instance<Sandbox> sandbox, ClusterWrites writes) {
        if (config.mode() == ClusterConfig.Mode.SANDBOX) {
            LOG.info("cluster: the sandbox (simulated GPU cluster); set ACCELTRIAGE_CLUSTER_MODE=kubeconfig or in-cluster for a real one");
            return sandbox.get().client(ClusterWrites.NAME, writes);
        }
        KubernetesClient client = new KubernetesClientBuilder().withConfig(bounded(Config.autoConfigure(null), config))
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor(ClusterWrites.NAME, writes)).build();
        LOG.infof("cluster: %s (%s, request timeout %d ms, %d retries)", client.getMasterUrl(),
                config.mode().name().toLowerCase().replace('_', '-'), client.getConfiguration().getRequestTimeout(),
                client.getConfiguration().getRequestRetryBackoffLimit());
        return client;
    }

    /** This process's own writes, heard on the client's HTTP path so the watched view re-reads what it wrote. */
    @Produces
    @Singleton
    ClusterWrites clusterWrites() {
        return new ClusterWrites();
    }

    /**
     * The cluster as triage, correlation, policy, evidence and the pages read it: a watched view
     * (acceltriage.cluster.watch=true, the default), or every read a request to the API server.
     */
    @Produces
    @Singleton
    ClusterReads clusterReads(KubernetesClient client, ClusterWrites writes,
            @ConfigProperty(name = "acceltriage.cluster.watch", defaultValue = "true") boolean watch) {
        if (!watch) {
            LOG.info("cluster view: off (acceltriage.cluster.watch=false): every read is a request to the API server");
            return ClusterReads.direct(client);
        }
        WatchedCluster view = WatchedCluster.start(client, writes, WatchedCluster.Settings.DEFAULT);
        LOG.infof("cluster view: watching %s; until the first lists arrive reads go to the API server and readiness"
                + " (check \"cluster-view\") waits", String.join(", ", view.watchedKinds()));
        return view;
    }

    void closeClusterReads(@Disposes ClusterReads reads) {
        if (reads instanceof WatchedCluster view) view.close();
    }

    /** Node-agent rollouts, read by the fleet responder. */
    @Produces
    @Singleton
    Rollouts rollouts(KubernetesClient client, ResponderFactory factory) {
        return new Rollouts(client, factory.nodeAgents());
    }

    /** The nodes as pages and chat show them. */
    @Produces
    @Singleton
    Nodes nodes(ClusterReads reads) {
        return new Nodes(reads);
    }

    /** Correlation's read-only view of pods, owners and gangs. */
    @Produces
    @Singleton
    Membership membership(ClusterReads reads) {
        return new Membership(reads);
    }

    /**
     * The kubeconfig or in-cluster settings with our bounds on each request. fabric8's own defaults
     * (10 retries, backoff up to 3.2 s) would let one failing read hold a triage for 20 s or more.
     */
    static Config bounded(Config base, ClusterConfig config) {
        return new ConfigBuilder(base).withRequestTimeout(Math.toIntExact(config.requestTimeout().toMillis()))
                .withRequestRetryBackoffLimit(config.requestRetries()).withRequestRetryBackoffInterval(100).build();
    }

    @Produces
    @Singleton
    MetricsSource metricsSource(ClusterConfig config, Instance<Sandbox> sandbox, ClusterReads reads,
            @ConfigProperty(name = "acceltriage.metrics.source", defaultValue = "exporter") String source, PrometheusConfig prometheus) {
        if (!source.strip().equalsIgnoreCase("exporter") && !source.strip().equalsIgnoreCase("prometheus")) {
            throw new IllegalStateException("ACCELTRIAGE_METRICS_SOURCE (acceltriage.metrics.source) must be exporter or prometheus,"
                    + " got \"" + source + "\"");
        }
        if (source.strip().equalsIgnoreCase("prometheus")) {
            PrometheusSource p = PrometheusSource.from(prometheus);
            LOG.infof("metrics: %s", p);
            return p;
        }
        if (config.mode() == ClusterConfig.Mode.SANDBOX) {
            return new ExporterScrape(node -> Optional.ofNullable(sandbox.get().exporterUrl(node)).map(URI::create));
        }
        if (config.mode() == ClusterConfig.Mode.KUBECONFIG) {
            // A sandbox served by another process (the sandbox command): its exporters are that process's, named in its kubeconfig.
            Optional<String> shared = sandboxExporters();
            if (shared.isPresent()) {
                LOG.infof("metrics: the shared sandbox's simulated exporters (%s)", shared.get());
                return new ExporterScrape(node -> Optional.of(URI.create(shared.get().replace("{node}", node))));
            }
        }
        return exportersOnNodes(reads, config.exporterPort());
    }

    /** The exporter URL template of the kubeconfig in use when a sandbox wrote it; empty for any other (or none). */
    private static Optional<String> sandboxExporters() {
        Optional<java.nio.file.Path> file = CommandCluster.kubeconfig(null);
        if (file.isEmpty() || !java.nio.file.Files.isRegularFile(file.get())) return Optional.empty();
        try {
            return SandboxKubeconfig.exporters(java.nio.file.Files.readString(file.get()));
        } catch (java.io.IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /** A real cluster's exporters: dcgm-exporter runs as a DaemonSet, its pod on the node serves that node's GPUs. */
    static MetricsSource exportersOnNodes(io.acceltriage.cluster.ClusterReads reads, Optional<Integer> port) {
        return new ExporterScrape(node -> reads.podsOn(node).stream()
                // only the exporter DaemonSet's own pods: a pod merely named like the exporter is anyone's
                .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null && isExporter(p))
                .findFirst()
                .map(p -> URI.create("http://" + p.getStatus().getPodIP() + ":" + metricsPort(p, port) + "/metrics")));
    }

    /** dcgm-exporter's port, as the GPU operator deploys it. */
    private static final int DCGM_EXPORTER_PORT = 9400;

    private static final io.acceltriage.evidence.NodeAgents NODE_AGENTS = io.acceltriage.evidence.NodeAgents.load();

    /**
     * The configured port when the operator set one; else the port the exporter pod declares for its
     * metrics (dcgm-exporter 9400, AMD's device-metrics-exporter 5000, …): a port named like metrics,
     * else its only declared port; else dcgm-exporter's 9400.
     */
    private static int metricsPort(Pod p, Optional<Integer> configured) {
        if (configured.isPresent()) return configured.get();
        List<io.fabric8.kubernetes.api.model.ContainerPort> ports = p.getSpec() == null || p.getSpec().getContainers() == null ? List.of()
                : p.getSpec().getContainers().stream().filter(c -> c.getPorts() != null).flatMap(c -> c.getPorts().stream())
                        .filter(cp -> cp.getContainerPort() != null).toList();
        return ports.stream().filter(cp -> cp.getName() != null && cp.getName().contains("metrics")).findFirst()
                .or(() -> ports.size() == 1 ? java.util.Optional.of(ports.get(0)) : java.util.Optional.empty())
                .map(io.fabric8.kubernetes.api.model.ContainerPort::getContainerPort).orElse(DCGM_EXPORTER_PORT);
    }

    private static boolean isExporter(Pod p) {
        var owner = io.acceltriage.cluster.Owners.controllerOf(p);
        return owner != null && NODE_AGENTS.roleOf(p.getMetadata().getName(), owner.getKind(), owner.getName())
                == io.acceltriage.evidence.PodRole.EXPORTER;
    }

    /** The policy file, validated now (an invalid one stops the start) and reloaded when it changes. */
    @Produces
    @Singleton
    PolicySource policySource(@ConfigProperty(name = "acceltriage.policy.file", defaultValue = "policies/default.yaml") String file,
            @ConfigProperty(name = "acceltriage.policy.reload-every", defaultValue = "5s") Duration every, AuditLog audit,
            io.acceltriage.access.AccessTokens tokens) {
        java.util.Optional<String> sandboxApprover = tokens.sandboxApprover();
        PolicySource source = new PolicySource(file, new PolicySource.Listener() {
            @Override
            public void reloaded(String f, Policy p) {
                audit.append(null, AuditKind.POLICY_RELOADED, Actors.AGENT, Map.of("file", f, "policy", p.name()));
            }

            @Override
            public void refused(String f, String reason, Policy kept) {
                audit.append(null, AuditKind.POLICY_REJECTED, Actors.AGENT, Map.of("file", f, "reason", reason, "kept", kept.name()));
            }
        }, p -> sandboxApprover.map(p::withApprover).orElse(p));
        LOG.infof("policy: %s (%s)", source.current().name(), file);
        return every.isZero() ? source : source.watch(every);
    }

    void closePolicySource(@Disposes PolicySource source) {
        source.close();
    }

    /** The bundled runbooks and the operator's folder, validated at start (an invalid file stops it with its line). */
    @Produces
    @Singleton
    @io.quarkus.runtime.Startup
    io.acceltriage.diagnosis.Runbooks runbooks(@ConfigProperty(name = "acceltriage.runbooks.dir", defaultValue = "runbooks") String dir) {
        io.acceltriage.diagnosis.Runbooks runbooks = io.acceltriage.diagnosis.Runbooks.load(dir);
        LOG.infof("runbooks: %d (bundled, and %s when it is a folder)", runbooks.all().size(), dir);
        return runbooks;
    }

    /** The policy as it was at start; live decisions read {@link PolicySource#current()} instead. */
    @Produces
    @Singleton
    Policy policy(PolicySource source) {
        return source.current();
    }

    @Produces
    @Singleton
    Breaker breaker(Database database, AuditLog audit, Escalations escalations) {
        return new StoredBreaker(database, audit, trip -> escalations.tell(new Notice(null, "breaker-tripped", "fleet", "none", 0,
                "The circuit breaker tripped: " + trip.reason() + ". Every action escalates until a person resets it.",
                List.of("circuit breaker tripped: " + trip.reason() + "; reset with POST /api/v1/breaker/reset after checking the fleet"),
                "/api/v1/breaker")));
    }

    /** The breaker for the fleet page, chat's "reset breaker" and /metrics: the same stored row. */
    @Produces
    @Singleton
    CircuitBreakerControl breakerControl(Breaker breaker) {
        return new BreakerControl(breaker);
    }

    @Produces
    @Singleton
    Responder responder(ResponderFactory factory, ClusterReads reads, MetricsSource metrics, PolicySource policy,
            Database database, Breaker breaker) {
        return factory.build(new KubeApi(reads), metrics, policy::current, new StoredHistory(database), breaker);
    }

    /**
     * Who may act: with a real cluster the holder of a Lease (several replicas, one actor); in the
     * sandbox, trivially this process unless acceltriage.actions.lease=on.
     */
    @Produces
    @Singleton
    Leadership leadership(ClusterConfig config, KubernetesClient client,
            @ConfigProperty(name = "acceltriage.actions.lease", defaultValue = "auto") String lease,
            @ConfigProperty(name = "acceltriage.actions.lease-duration", defaultValue = "15s") Duration duration) {
        boolean on = "on".equals(lease) || ("auto".equals(lease) && config.mode() != ClusterConfig.Mode.SANDBOX);
        if (!on) {
            return Leadership.ALWAYS;
        }
        String ns = Optional.ofNullable(System.getenv("POD_NAMESPACE")).filter(s -> !s.isBlank()).orElse("acceltriage");
        String identity = Optional.ofNullable(System.getenv("POD_NAME")).filter(s -> !s.isBlank()).orElseGet(Wiring::hostname);
        LOG.infof("actions: executed by the holder of lease %s/%s (this replica: %s)", ns, LeaseLeadership.LEASE, identity);
        return new LeaseLeadership(client, ns, identity, duration);
    }

    @Produces
    @Singleton
    Executor executor(KubernetesClient client, Database database, AuditLog audit, Leadership leadership, PolicySource policy,
            MetricsSource metrics, ClusterReads reads, io.acceltriage.triage.ResponderFactory responders,
            @ConfigProperty(name = "acceltriage.actions.eviction-timeout", defaultValue = "60s") Duration eviction,
            @ConfigProperty(name = "acceltriage.actions.scale-up-wait", defaultValue = "60s") Duration scaleUp,
            @ConfigProperty(name = "acceltriage.actions.verify-timeout", defaultValue = "60s") Duration verify,
            @ConfigProperty(name = "acceltriage.actions.workers", defaultValue = "4") int workers) {
        if (workers < 1) throw new IllegalArgumentException("acceltriage.actions.workers must be at least 1, not " + workers);
        return new Executor(client, database, audit, leadership, new Timing(eviction, scaleUp, verify, Duration.ofMillis(500)),
                policy::current, new TelemetryGpus(metrics), NODE_AGENTS.poolLabels(), workers,
                io.acceltriage.evidence.Checkpoints.reading(reads, metrics, responders.toolsets()));
    }


    @Produces
    @Singleton
    PolicyApprovals approvals(Executor executor, PolicySource policy, Breaker breaker, io.acceltriage.metrics.ServiceMetrics metrics) {
        return new PolicyApprovals(executor, policy::current, breaker, Clock.systemUTC(), metrics::approval);
    }

    /** The one way people decide, whatever the channel: see {@link Decisions}. */
    @Produces
    @Singleton
    Decisions decisions(PolicyApprovals approvals, Executor executor, Breaker breaker, PolicySource policy, AuditLog audit,
            io.acceltriage.triage.IncidentFollowsActions incidents) {
        return new Decisions(approvals, executor, breaker, policy::current, audit, incidents::follow);
    }

    private static String hostname() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "acceltriage-" + ProcessHandle.current().pid();
        }
    }
}
