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
    private final ExecutorService sources = Executors.newFixedThreadPool(8, r -> {
        Thread t = new Thread(r, "acceltriage-evidence");
        t.setDaemon(true);
        return t;
    });

    ResponderFactory(@ConfigProperty(name = "acceltriage.tools.dir", defaultValue = "tools") String toolsDir,
            @Location("summary.txt") Template summary, ModelMode models) {
        this.models = models;
        this.toolsets = Toolsets.load(toolsDir);
        this.signatures = SignatureCatalogue.load();
        this.nodeAgents = NodeAgents.load();
        this.xids = XidCatalogue.load();
        this.clusterSignals = ClusterSignals.load();
        this.summary = summary;
    }

    /** A responder for the live service: the model reviews the rules' work when one is configured. */
    public Responder build(KubeApi cluster, MetricsSource metrics, Policy policy) {
        return build(cluster, metrics, policy, models.agent().orElse(null));
    }

    /** {@code agent}: the model to review with, null for rules only (plain scenario replay). */
    public Responder build(KubeApi cluster, MetricsSource metrics, Policy policy, ModelAgent agent) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()));
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary), agent);
    }

    public ModelMode models() {
        return models;
    }

    /** The live responder: the policy as reloaded, budgets from past actions, the stored breaker. */
    public Responder build(KubeApi cluster, MetricsSource metrics, java.util.function.Supplier<Policy> policy,
            io.acceltriage.policy.ActionHistory history, io.acceltriage.policy.Breaker breaker) {
        EvidenceGatherer gatherer = EvidenceGatherer.over(cluster, metrics, toolsets, signatures, nodeAgents, sources);
        Classifier classifier = new Classifier(xids, toolsets, signatures, clusterSignals);
        PolicyEngine engine = new PolicyEngine(policy, cluster.census(nodeAgents.poolLabels(), nodeAgents.acceleratorResources()),
                history, breaker, java.time.Clock.systemUTC());
        return new Responder(gatherer, classifier, new RulesPlanner(), engine, new SummaryWriter(summary));
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
