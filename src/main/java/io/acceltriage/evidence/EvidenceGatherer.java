package io.acceltriage.evidence;

import io.acceltriage.incident.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;

/**
 * Gathers the evidence bundle for a subject. Sources are read in parallel, so triage takes about as
 * long as the slowest one; a source that fails becomes a gap, never a guess.
 */
public final class EvidenceGatherer {

    private final ClusterCollector cluster;
    private final MetricsCollector metrics;
    private final LogCollector logs;
    private final ExecutorService executor;
    private final Checkpoints checkpoints;
    private final Rollouts rollouts;

    public EvidenceGatherer(KubernetesClient client, MetricsSource metricsSource, Toolsets toolsets,
            SignatureCatalogue signatures, NodeAgents nodeAgents, ExecutorService executor) {
        this(io.acceltriage.cluster.ClusterReads.direct(client), metricsSource, toolsets, signatures, nodeAgents, executor);
    }

    /** Objects read through {@code reads} (a watched view, or the API server); logs always from the API server. */
    public EvidenceGatherer(io.acceltriage.cluster.ClusterReads reads, MetricsSource metricsSource, Toolsets toolsets,
            SignatureCatalogue signatures, NodeAgents nodeAgents, ExecutorService executor) {
        this.cluster = new ClusterCollector(reads, nodeAgents, executor);
        this.metrics = new MetricsCollector(metricsSource, toolsets);
        this.logs = new LogCollector(reads.client(), signatures);
        this.executor = executor;
        this.checkpoints = new Checkpoints(reads, metricsSource, toolsets, nodeAgents.acceleratorResources());
        this.rollouts = new Rollouts(reads.client(), nodeAgents);
    }

    /** A gatherer reading the cluster behind {@code api}. */
    public static EvidenceGatherer over(io.acceltriage.cluster.KubeApi api, MetricsSource metricsSource, Toolsets toolsets,
            SignatureCatalogue signatures, NodeAgents nodeAgents, ExecutorService executor) {
        return new EvidenceGatherer(api.reads(), metricsSource, toolsets, signatures, nodeAgents, executor);
    }

    /** Gathers evidence about a subject; {@code at} is the time the alerts speak of, to tell old news from new. */
    public EvidenceBundle gather(Subject subject, java.time.Instant at) {
        return gather(subject, at, "acceltriage.io/last-checkpoint", null);
    }

    /**
     * Gathers evidence, and each gang's last checkpoint from the annotation {@code checkpointAnnotation} on its
     * top object, else from the tool {@code checkpointTool} (null: none).
     */
    public EvidenceBundle gather(Subject subject, java.time.Instant at, String checkpointAnnotation, String checkpointTool) {
        List<Gap> gaps = new ArrayList<>();
        List<String> consulted = new ArrayList<>();
        // Metrics and logs start the moment the cluster collection knows what to read, not after it.
        Map<String, CompletableFuture<MetricsCollector.Result>> metricsByNode = new ConcurrentHashMap<>();
        List<CompletableFuture<LogCollector.Result>> logFutures = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicReference<CompletableFuture<List<Observation>>> behindRollouts =
                new java.util.concurrent.atomic.AtomicReference<>(CompletableFuture.completedFuture(List.of()));
        ClusterCollector.Early early = new ClusterCollector.Early() {
            @Override
            public void nodeKnown(String node) {
                metricsByNode.computeIfAbsent(node, n -> CompletableFuture.supplyAsync(() -> readMetrics(n), executor));
            }

            @Override
            public void logTargets(List<LogTarget> targets) {
                targets.forEach(t -> logFutures.add(CompletableFuture.supplyAsync(() -> logs.collect(t), executor)));
            }

            @Override
            public void failingAgents(java.util.Set<String> agents) {
                // A node agent failing right after its DaemonSet rolled out a new revision: the rollout is what to hold.
                // The revisions are no watched kind: read beside the logs and metrics, not after them.
                if (!agents.isEmpty()) behindRollouts.set(CompletableFuture.supplyAsync(() -> rollouts.behind(agents, at), executor));
            }
        };
        // A node subject's metrics need nothing from the API server: start them at once.
        if (subject.kind() == Subject.Kind.NODE) {
            early.nodeKnown(subject.name());
        }
        ClusterView view;
        try {
            view = cluster.collect(subject, early);
        } catch (KubernetesClientException e) {
            gaps.add(new Gap(Source.CLUSTER, "cluster state unreadable: " + ClusterCollector.apiFailure(e)));
            String node = subject.kind() == Subject.Kind.NODE ? subject.name() : null;
            view = new ClusterView(node, null, false, node == null ? List.of() : List.of(node),
                    List.of(), List.of(), List.of(), List.of(), List.of(), Map.of());
            logFutures.clear(); // the view that asked for them is gone: read nothing it does not name
            behindRollouts.set(CompletableFuture.completedFuture(List.of()));
        }
        gaps.addAll(view.gaps());
        final String node = view.node();
        List<String> metricNodes = view.metricNodes();
        List<CompletableFuture<MetricsCollector.Result>> metricFutures = new ArrayList<>();
        for (String n : metricNodes) {
            early.nodeKnown(n);
            metricFutures.add(metricsByNode.get(n));
        }

        List<Observation> observations = new ArrayList<>(view.observations());
        consulted.add("cluster: " + (node == null ? "no single node" : "node " + node) + ", " + view.pods().size() + " pods, "
                + view.workloads().size() + " workloads");
        for (int i = 0; i < metricFutures.size(); i++) {
            try {
                MetricsCollector.Result m = metricFutures.get(i).join();
                for (Observation o : m.observations()) observations.add(provenance(o, view));
                consulted.add("metrics: " + m.samplesRead() + " device samples of " + metricNodes.get(i));
            } catch (CompletionException e) {
                Throwable cause = e.getCause();
                gaps.add(new Gap(Source.METRICS, cause instanceof UnavailableMetrics u ? u.getMessage() : String.valueOf(cause)));
            }
        }
        int logsRead = 0;
        for (CompletableFuture<LogCollector.Result> f : logFutures) {
            LogCollector.Result r = f.join();
            observations.addAll(r.observations());
            gaps.addAll(r.gaps());
            logsRead += r.logsRead();
        }
        consulted.add("logs: " + logsRead + " container logs read");
        if (view.workloads().stream().anyMatch(Workload::gang)) {
            try {
                List<Observation> saved = checkpoints.of(view.workloads(), new Checkpoints.Where(checkpointAnnotation, checkpointTool), at);
                observations.addAll(saved);
                consulted.add("checkpoints: " + saved.size() + " of " + view.workloads().stream().filter(Workload::gang).count()
                        + " gangs report their last checkpoint");
            } catch (KubernetesClientException e) {
                gaps.add(new Gap(Source.CLUSTER, "the gangs' last checkpoints unreadable: " + ClusterCollector.apiFailure(e)));
            }
        }

        observations.addAll(behindRollouts.get().join());

        List<Evidence> items = new ArrayList<>(observations.size());
        for (Observation o : observations) {
            items.add(new Evidence("E" + (items.size() + 1), o.source(), o.summary(), o.fact(), o.trust()));
        }
        return new EvidenceBundle(subject, at, node, view.pool(), view.nodeCordoned(), items, view.pods(), view.workloads(),
                gaps, consulted);
    }

    /**
     * A device series is the platform's only when the exporter DaemonSet's own pod served it: where the
     * cluster view knows that pod's address on the node, a series scraped from any other address (a
     * look-alike pod, a tenant's ServiceMonitor with honorLabels) is the tenant's.
     */
    private static Observation provenance(Observation o, ClusterView view) {
        if (!(o.fact() instanceof Facts.MetricReading m) || o.origin() == null) return o;
        java.util.Set<String> exporters = view.exporterAddresses().getOrDefault(m.node(), java.util.Set.of());
        if (exporters.isEmpty()) return o;
        String origin = o.origin();
        String host = origin.startsWith("[") ? origin.substring(1, Math.max(1, origin.indexOf(']')))      // [v6]:port
                : origin.indexOf(':') == origin.lastIndexOf(':') ? origin.replaceFirst(":\\d+$", "") : origin; // v4:port, bare v6
        // Only an address can be told from the exporter pods' addresses (a relabelled instance names anything).
        if (!IP.matcher(host).matches()) return o;
        return exporters.contains(host) ? o
                : o.withTrust(Trust.TENANT, "(served from " + o.origin() + ", not by the exporter DaemonSet's pod on " + m.node() + ")");
    }

    private static final java.util.regex.Pattern IP = java.util.regex.Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+");

    private MetricsCollector.Result readMetrics(String node) {
        try {
            return metrics.collect(node);
        } catch (MetricsSource.EvidenceUnavailable e) {
            throw new UnavailableMetrics(e.getMessage());
        }
    }

    private static final class UnavailableMetrics extends RuntimeException {
        UnavailableMetrics(String message) {
            super(message, null, false, false);
        }
    }
}
