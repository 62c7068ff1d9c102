package io.acceltriage.triage;

import io.acceltriage.agent.RulesPlanner;
import io.acceltriage.agent.SummaryWriter;
import io.acceltriage.agent.llm.ModelAgent;
import io.acceltriage.agent.llm.ModelMode;
import io.acceltriage.cluster.KubeApi;
import io.acceltriage.diagnosis.Classifier;
import io.acceltriage.diagnosis.ClusterSignals;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.evidence.EvidenceGatherer;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicyEngine;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Builds responders from the loaded knowledge: one for the live cluster, one per replayed scenario.
 * Knowledge files are read once, at start, and a bad one stops the service with its file and line.
 */
@ApplicationScoped
public class ResponderFactory {

    private final Toolsets toolsets;
    private final SignatureCatalogue signatures;
    private final NodeAgents nodeAgents;
    private final XidCatalogue xids;
    private final ClusterSignals clusterSignals;
    private final Template summary;
    private final ModelMode models;
    private final GpuMemory memory;
    private final io.acceltriage.history.FaultHistory faults;
    private final io.acceltriage.evidence.EvidenceOverlay overlay;
    /**
     * The evidence reads of every triage worker: API requests, exporter scrapes, logs. They wait on the network,
     * not the CPU, and a triage starts several at once (a gang's member nodes, each pod's log), so the pool is sized
     * for the reads in flight, not for the cores: with too few threads a read waits for another triage's read and
     * every wait adds a round trip.
     */
    private final ExecutorService sources;

    ResponderFactory(@ConfigProperty(name = "acceltriage.tools.dir", defaultValue = "tools") String toolsDir,
            @Location("summary.txt") Template summary, ModelMode models, io.acceltriage.history.FaultHistory faults,
            io.acceltriage.evidence.EvidenceOverlay overlay,
            @ConfigProperty(name = "acceltriage.evidence.readers", defaultValue = "32") int readers) {
        if (readers < 1) throw new IllegalArgumentException("acceltriage.evidence.readers must be at least 1, got " + readers);
        this.sources = Executors.newFixedThreadPool(readers, r -> {
            Thread t = new Thread(r, "acceltriage-evidence");
            t.setDaemon(true);
            return t;
        });
        this.overlay = overlay;
        this.models = models;
        this.toolsets = Toolsets.load(toolsDir);
        this.signatures = SignatureCatalogue.load();
        this.nodeAgents = NodeAgents.load();
        this.xids = XidCatalogue.load();
        this.clusterSignals = ClusterSignals.load();
        this.summary = summary;
        this.faults = faults;
        this.memory = new GpuMemory(faults, new io.acceltriage.diagnosis.XidSightings(toolsets), xids,
                io.acceltriage.diagnosis.GpuRepeats.load());
    }

    /** The fault history as triage records and recalls it. */
    GpuMemory memory() {
        return memory;
    }

    /** A responder as the live service runs one, with a fixed policy: the model where it adds something. */
    public Responder build(KubeApi cluster, MetricsSource metrics, Policy policy) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()));
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary), liveModel());
    }

    /**
     * {@code agent}: the model that investigates every replayed incident (eval --llm measures its
     * conclusions against the scenarios' expectations), null for rules only (plain scenario replay).
     */
    public Responder build(KubeApi cluster, MetricsSource metrics, Policy policy, ModelAgent agent) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()));
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary),
                agent == null ? null : agent::review);
    }

    /**
     * As {@link #build(KubeApi, MetricsSource, Policy, ModelAgent)}, with a fault history the repeat-offender rule counts
     * (a replayed scenario's {@code history}).
     */
    public Responder build(KubeApi cluster, MetricsSource metrics, Policy policy, ModelAgent agent, io.acceltriage.policy.FaultCounts faults) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(() -> policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()),
                since -> java.util.List.of(), io.acceltriage.policy.Breaker.inMemory(), java.time.Clock.systemUTC(), faults);
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary),
                agent == null ? null : agent::review);
    }

    /** The configured model's live step (investigate where the rules are weak, summarise after deciding); null in rules mode. */
    private Responder.ModelStep liveModel() {
        return models.agent().map(Responder.ModelStep::live).orElse(null);
    }

    public ModelMode models() {
        return models;
    }

    /** The live responder: the policy as reloaded, budgets from past actions, the stored breaker, the configured model. */
    public Responder build(KubeApi cluster, MetricsSource metrics, java.util.function.Supplier<Policy> policy,
            io.acceltriage.policy.ActionHistory history, io.acceltriage.policy.Breaker breaker) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()),
                history, breaker, java.time.Clock.systemUTC(), fatalXids(faults));
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary), liveModel())
                .remembering(memory).overlaying(overlay);
    }

    /** The fault history as the policy's repeat-offender rule counts it. */
    static io.acceltriage.policy.FaultCounts fatalXids(io.acceltriage.history.FaultHistory faults) {
        return new io.acceltriage.policy.FaultCounts() {
            @Override
            public java.util.List<java.time.Instant> fatalXids(String node, String gpu, java.time.Instant since) {
                return faults.fatalOnGpu(node, gpu, since).stream().map(io.acceltriage.history.GpuFault::at).toList();
            }

            @Override
            public java.util.Map<String, java.util.List<java.time.Instant>> fatalXidsByGpu(String node, java.time.Instant since) {
                return faults.fatalOnNode(node, since).stream().collect(java.util.stream.Collectors.groupingBy(
                        io.acceltriage.history.GpuFault::gpu, java.util.TreeMap::new,
                        java.util.stream.Collectors.mapping(io.acceltriage.history.GpuFault::at, java.util.stream.Collectors.toList())));
            }
        };
    }

    public Toolsets toolsets() {
        return toolsets;
    }

    public NodeAgents nodeAgents() {
        return nodeAgents;
    }

    @PreDestroy
    void stop() {
        sources.shutdownNow();
    }
}
