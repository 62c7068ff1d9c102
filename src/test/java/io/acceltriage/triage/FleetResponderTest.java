package io.acceltriage.triage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.RulesPlanner;
import io.acceltriage.agent.SummaryWriter;
import io.acceltriage.cluster.PoolCensus;
import io.acceltriage.diagnosis.ClusterSignals;
import io.acceltriage.diagnosis.Classifier;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceGatherer;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.evidence.Sample;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.incident.Correlator;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicyEngine;
import io.acceltriage.sandbox.SimulatedApiServer;
import io.quarkus.qute.Engine;
import io.quarkus.qute.ReflectionValueResolver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Triage of fleet incidents (alert storms) over a simulated API server in CRUD mode, with the
 * ordinary responder assessing the sampled members and a fake exporter per node: what the class
 * promises — a storm right after a node-agent rollout is infrastructure, a fleet never gets node
 * actions, and a person is told once how many nodes and alerts it covers and what rolled out.
 */
class FleetResponderTest {

    static final Instant STORM = Instant.parse("2026-11-30T10:00:00Z");
    static final int NODES = 12;
    static final String ALERT = "GpuNodeAllocatableLost";
    static final String PLUGIN_DS = "nvidia-device-plugin-daemonset";
    static final ExecutorService POOL = Executors.newFixedThreadPool(4);

    SimulatedApiServer server;
    /** What each node's exporter reports now; a node not listed reports nothing. */
    final Map<String, List<Sample>> exporters = new ConcurrentHashMap<>();
    /** The nodes whose exporters the triage read. */
    final Set<String> scraped = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void world() {
        server = SimulatedApiServer.start();
        for (int i = 1; i <= NODES; i++) {
            server.apply(Map.of("apiVersion", "v1", "kind", "Node",
                    "metadata", Map.of("name", node(i), "labels", Map.of("acceltriage.io/pool", "train-h100",
                            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count", "8")),
                    "spec", Map.of(),
                    "status", Map.of("capacity", Map.of("nvidia.com/gpu", "8"), "allocatable", Map.of("nvidia.com/gpu", "8"),
                            "conditions", List.of(Map.of("type", "Ready", "status", "True", "reason", "KubeletReady")))));
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    static String node(int i) {
        return String.format("h100-tr-%02d", i);
    }

    FleetResponder fleet() {
        NodeAgents agents = NodeAgents.load();
        Toolsets toolsets = Toolsets.load("tools");
        SignatureCatalogue signatures = SignatureCatalogue.load();
        MetricsSource metrics = n -> {
            scraped.add(n);
            return new NodeSamples(exporters.getOrDefault(n, List.of()), List.of());
        };
        Responder responder = new Responder(
                new EvidenceGatherer(server.client(), metrics, toolsets, signatures, agents, POOL),
                new Classifier(XidCatalogue.load(), toolsets, signatures, ClusterSignals.load()),
                new RulesPlanner(),
                new PolicyEngine(Policy.load("policies/default.yaml"),
                        new PoolCensus(server.client(), agents.poolLabels(), agents.acceleratorResources())),
                new SummaryWriter(Engine.builder().addDefaults().addValueResolver(new ReflectionValueResolver()).build()
                        .parse("{a.diagnosis.cause}")));
        return new FleetResponder(responder, new io.acceltriage.evidence.Rollouts(server.client(), agents));
    }

    /** One alert per node, a minute apart, the last at {@link #STORM}. */
    static List<Alert> storm(String alertname, int nodes) {
        List<Alert> out = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            out.add(alert(alertname, node(i), STORM.minus(Duration.ofMinutes(nodes - i))));
        }
        return out;
    }

    static Alert alert(String alertname, String node, Instant at) {
        return new Alert("fp-" + node, "{}:{alertname=\"" + alertname + "\"}", AlertStatus.FIRING,
                Map.of("alertname", alertname, "node", node, "severity", "critical"), Map.of(), at, null, null);
    }

    Assessment assessStorm(String alertname) {
        return fleet().assess(Correlator.fleetSubject(alertname), storm(alertname, NODES));
    }

    /** The XID gauge of one GPU of every node. */
    void everyNodeReportsXid(int code) {
        for (int i = 1; i <= NODES; i++) {
            exporters.put(node(i), List.of(new Sample("DCGM_FI_DEV_XID_ERRORS",
                    Map.of("gpu", "3", "UUID", "GPU-" + i + "-3", "Hostname", node(i)), code)));
        }
    }

    /** A DaemonSet's revisions, each created at the given time, the last the newest. */
    void revisions(String namespace, String daemonSet, String image, Instant... created) {
        for (int r = 0; r < created.length; r++) {
            server.apply(Map.of("apiVersion", "apps/v1", "kind", "ControllerRevision",
                    "metadata", Map.of("name", daemonSet + "-rev" + (r + 1), "namespace", namespace,
                            "creationTimestamp", created[r].toString(),
                            "ownerReferences", List.of(Map.of("apiVersion", "apps/v1", "kind", "DaemonSet", "name", daemonSet,
                                    "uid", daemonSet + "-uid", "controller", true))),
                    "revision", r + 1,
                    "data", Map.of("spec", Map.of("template", Map.of("spec", Map.of("containers",
                            List.of(Map.of("name", "main", "image", r == created.length - 1 ? image : "old:" + r))))))));
        }
    }

    void devicePluginRolledOut(Instant newRevision) {
        revisions("gpu-operator", PLUGIN_DS, "nvcr.io/nvidia/k8s-device-plugin:v0.18.0", Instant.parse("2026-10-20T11:05:00Z"),
                newRevision);
    }

    static Optional<Evidence> rolloutEvidence(Assessment a, String daemonSet) {
        return a.evidence().items().stream()
                .filter(e -> e.fact() instanceof Facts.ClusterEvent ev && "DaemonSet".equals(ev.objectKind())
                        && daemonSet.equals(ev.objectName()))
                .findFirst();
    }

    @Test
    void aSubjectThatIsNoFleetPassesStraightToTheResponder() {
        exporters.put(node(1), List.of(new Sample("DCGM_FI_DEV_XID_ERRORS", Map.of("gpu", "2", "UUID", "GPU-2", "Hostname", node(1)), 79)));

        Assessment a = fleet().assess(Subject.node(node(1)), List.of(alert("GpuXidError", node(1), STORM)));

        assertEquals(Subject.node(node(1)), a.subject());
        assertEquals(Family.DEVICE, a.diagnosis().family(), a.diagnosis().cause());
        assertTrue(a.judgements().stream().anyMatch(j -> j.proposal().name().equals("cordon-node:" + node(1))),
                "the node's own triage proposes: " + a.judgements());
    }

    @Test
    void aStormRightAfterANodeAgentRolloutIsInfrastructureEvenWhenTheMembersLookHealthy() {
        devicePluginRolledOut(STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertEquals(Family.INFRASTRUCTURE, a.diagnosis().family(), a.diagnosis().cause());
        Evidence rollout = rolloutEvidence(a, PLUGIN_DS).orElseThrow(() -> new AssertionError("no rollout evidence: " + a.evidence().items()));
        assertTrue(a.diagnosis().evidenceIds().contains(rollout.id()), "cites the rollout: " + a.diagnosis().evidenceIds());
    }

    @Test
    void theRolloutEvidenceNamesTheImageTheNewRevisionRolledOut() {
        devicePluginRolledOut(STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        Evidence rollout = rolloutEvidence(a, PLUGIN_DS).orElseThrow(() -> new AssertionError("no rollout evidence: " + a.evidence().items()));
        assertTrue(rollout.summary().contains("(nvcr.io/nvidia/k8s-device-plugin:v0.18.0)"), rollout.summary());
    }

    @Test
    void aNodeAgentRevisionOlderThanSixHoursIsNotRightAfterARollout() {
        devicePluginRolledOut(STORM.minus(Duration.ofHours(7)));

        Assessment a = assessStorm(ALERT);

        assertTrue(rolloutEvidence(a, PLUGIN_DS).isEmpty(), "evidence: " + a.evidence().items());
        assertEquals(Family.NONE, a.diagnosis().family(), "healthy members and no recent rollout: " + a.diagnosis().cause());
    }

    @Test
    void theFirstInstallOfANodeAgentIsNoRollout() {
        revisions("gpu-operator", PLUGIN_DS, "nvcr.io/nvidia/k8s-device-plugin:v0.18.0", STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertTrue(rolloutEvidence(a, PLUGIN_DS).isEmpty(), "evidence: " + a.evidence().items());
        assertEquals(Family.NONE, a.diagnosis().family(), a.diagnosis().cause());
    }

    @Test
    void aRolloutOfADaemonSetThatIsNoNodeAgentDoesNotCount() {
        revisions("logging", "fluent-bit", "fluent/fluent-bit:3.2", Instant.parse("2026-10-20T11:05:00Z"), STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertTrue(rolloutEvidence(a, "fluent-bit").isEmpty(), "evidence: " + a.evidence().items());
        assertEquals(Family.NONE, a.diagnosis().family(), a.diagnosis().cause());
    }

    @Test
    void aTenantsDaemonSetNamedLikeTheDevicePluginIsNoNodeAgentRollout() {
        // team-a runs GPU work in its namespace: a DaemonSet there is the tenant's, whatever it is called
        server.apply(Map.of("apiVersion", "v1", "kind", "Pod", "metadata", Map.of("name", "trainer-0", "namespace", "team-a"),
                "spec", Map.of("nodeName", node(1), "containers", List.of(Map.of("name", "trainer", "image", "ghcr.io/team-a/train:1",
                        "resources", Map.of("limits", Map.of("nvidia.com/gpu", "8"))))), "status", Map.of("phase", "Running")));
        revisions("team-a", "team-a-device-plugin-shim", "ghcr.io/team-a/shim:2", Instant.parse("2026-10-20T11:05:00Z"),
                STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertTrue(rolloutEvidence(a, "team-a-device-plugin-shim").isEmpty(), "evidence: " + a.evidence().items());
    }

    @Test
    void aFleetIncidentNeverGetsNodeActionsEvenWhenEveryMemberShowsAFatalXid() {
        everyNodeReportsXid(79);

        Assessment a = assessStorm("GpuXidError");

        assertEquals(List.of(), a.judgements(), "cordoning half a pool makes the outage");
    }

    @Test
    void membersAgreeingOnDeviceFaultsAcrossManyNodesAreOneInfrastructureFault() {
        everyNodeReportsXid(79);

        Assessment a = assessStorm("GpuXidError");

        assertEquals(Family.INFRASTRUCTURE, a.diagnosis().family(), "a device does not fail on many nodes at once: " + a.diagnosis().cause());
    }

    @Test
    void theSameApplicationXidOnManyNodesIsTheApplications() {
        everyNodeReportsXid(13);

        Assessment a = assessStorm("GpuXidError");

        assertEquals(Family.APPLICATION, a.diagnosis().family(), a.diagnosis().cause());
    }

    @Test
    void aPersonIsToldOnceHowManyNodesAndAlertsAndWhatRolledOut() {
        devicePluginRolledOut(STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertEquals(1, a.escalationReasons().size(), "reasons: " + a.escalationReasons());
        String reason = a.escalationReasons().get(0);
        assertTrue(reason.contains(NODES + " nodes"), reason);
        assertTrue(reason.contains(NODES + " alerts"), reason);
        assertTrue(reason.contains("gpu-operator/" + PLUGIN_DS) && reason.contains("revision 2"), "what rolled out: " + reason);
    }

    @Test
    void onlyAFewMembersAreAssessedInDepthTheStormsEdgesAndItsMiddle() {
        Assessment a = assessStorm(ALERT);

        assertEquals(FleetResponder.SAMPLE, scraped.size(), "scraped " + scraped + " for " + a.subject());
        assertTrue(scraped.contains(node(1)) && scraped.contains(node(NODES)), "first and last member: " + scraped);
    }

    @Test
    void aStormRightAfterANodeAgentRolloutProposesPausingThatRolloutForAPersonToApprove() {
        devicePluginRolledOut(STORM.minus(Duration.ofMinutes(8)));

        Assessment a = assessStorm(ALERT);

        assertEquals(List.of("pause-rollout:gpu-operator/" + PLUGIN_DS),
                a.judgements().stream().map(j -> j.proposal().name()).toList(), "the fleet's one mitigation, no node action");
        assertEquals(io.acceltriage.policy.Decision.APPROVE, a.judgements().get(0).verdict().decision(),
                "the shipped policy wants a person: " + a.judgements().get(0).verdict().reasons());
        assertTrue(a.escalationReasons().get(0).contains("pause-rollout:gpu-operator/" + PLUGIN_DS + " waits for a person's approval"),
                a.escalationReasons().get(0));
    }

    @Test
    void aStormWithoutARolloutProposesNoPause() {
        everyNodeReportsXid(79);

        Assessment a = assessStorm("GpuXidError");

        assertTrue(a.judgements().stream().noneMatch(j -> j.proposal().kind() == io.acceltriage.policy.ActionKind.PAUSE_ROLLOUT),
                "nothing rolled out: " + a.judgements());
    }
}
