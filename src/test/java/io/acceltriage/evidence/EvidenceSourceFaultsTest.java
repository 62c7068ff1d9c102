package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.acceltriage.agent.Plan;
import io.acceltriage.agent.RulesPlanner;
import io.acceltriage.cluster.ClusterFacts;
import io.acceltriage.cluster.PoolState;
import io.acceltriage.diagnosis.Classifier;
import io.acceltriage.diagnosis.ClusterSignals;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicyContext;
import io.acceltriage.policy.PolicyEngine;
import io.acceltriage.policy.Proposal;
import io.acceltriage.testing.ServerProcess;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What triage makes of sources that fail while it gathers evidence, scripted with the fabric8 mock
 * server's expectations and a local fake exporter: each failure is a gap naming the source and what
 * to check, bounded in time, and a diagnosis that lacks what a verdict needs escalates instead of acting.
 */
class EvidenceSourceFaultsTest {

    static final String NODE = "gpu-h100-01";
    static final String ALL_PODS_ON_NODE = "/api/v1/pods?fieldSelector=spec.nodeName%3D" + NODE;
    static final String PENDING = "/api/v1/pods?fieldSelector=status.phase%3DPending";
    /** XID 79: the GPU fell off the bus; alone, enough for the rules to fence the node. */
    static final String XID_79 = "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
            + "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"" + NODE + "\"} 79\n";

    KubernetesMockServer api;
    KubernetesClient client;
    HttpServer exporter;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Policy policy = Policy.load("src/test/resources/policies/test.yaml");

    @BeforeEach
    void start() throws Exception {
        api = new KubernetesMockServer(false);
        api.init();
        // Short enough that a hung API server shows as a gap well within the 5 s the test allows, long
        // enough that a healthy read on a loaded 2-core machine is not mistaken for one.
        client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.createClient().getConfiguration())
                .withRequestRetryBackoffLimit(0).withRequestTimeout(1500).build()).build();
        exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        exporter.createContext("/metrics", exchange -> {
            byte[] body = XID_79.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        exporter.start();
    }

    @AfterEach
    void stop() {
        exporter.stop(0);
        client.close();
        api.destroy();
        pool.shutdownNow();
    }

    /** The API server's answers for a healthy node, except where a test scripted a failure first. */
    void healthyCluster() {
        api.expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE)
                .addToLabels("nvidia.com/gpu.present", "true").addToLabels("acceltriage.io/pool", "h100-train").endMetadata()
                .withNewSpec().endSpec().withNewStatus().addToCapacity("nvidia.com/gpu", new Quantity("8"))
                .addToAllocatable("nvidia.com/gpu", new Quantity("8")).addNewCondition().withType("Ready").withStatus("True")
                .endCondition().endStatus().build()).always();
        api.expect().get().withPath(ALL_PODS_ON_NODE).andReturn(200, new PodListBuilder().build()).always();
        api.expect().get().withPath(PENDING).andReturn(200, new PodListBuilder().build()).always();
        api.expect().get().withPath("/api/v1/events").andReturn(200, new EventListBuilder().build()).always();
    }

    EvidenceGatherer gatherer(int exporterPort) {
        return new EvidenceGatherer(client, new ExporterScrape(n -> Optional.of(URI.create("http://127.0.0.1:" + exporterPort + "/metrics"))),
                Toolsets.load("tools"), SignatureCatalogue.load(), NodeAgents.load(), pool);
    }

    EvidenceBundle gather(int exporterPort) {
        return gatherer(exporterPort).gather(new Subject(Subject.Kind.NODE, null, NODE), Instant.now());
    }

    static Diagnosis classify(EvidenceBundle b) {
        return new Classifier(XidCatalogue.load(), Toolsets.load("tools"), SignatureCatalogue.load(), ClusterSignals.load()).classify(b);
    }

    /** The policy's verdict on a cordon of the node, with a pool that would allow it. */
    Decision cordonVerdict(Diagnosis d) {
        ClusterFacts roomy = new ClusterFacts() {
            public PoolState poolOf(String node) { return new PoolState("h100-train", 12, 0, 11, false); }
            public boolean optedOut(io.acceltriage.cluster.TargetKind kind, String target, String label) { return false; }
        };
        return new PolicyEngine(policy, roomy).decide(new Proposal(ActionKind.CORDON_NODE, NODE, "test", d.evidenceIds(), "rules"),
                new PolicyContext(d.family(), d.confidence(), d.degradation())).decision();
    }

    @Test
    void withEverySourceHealthyTheXidIsADeviceFaultThePolicyLetsCordon() {
        // The baseline the failures below are measured against: this evidence alone is acted on.
        healthyCluster();
        EvidenceBundle b = gather(exporter.getAddress().getPort());
        assertTrue(b.gaps().isEmpty(), b.gaps().toString());
        Diagnosis d = classify(b);
        assertEquals(Family.DEVICE, d.family());
        assertEquals(Decision.ALLOW, cordonVerdict(d), d.toString());
    }

    @Test
    void anApiServerAnswering500WhileEvidenceIsGatheredIsAClusterGapAndTheDeviceFaultEscalatesInsteadOfCordoning() {
        api.expect().get().withPath("/api/v1/nodes/" + NODE).andReturn(500, "etcdserver: request timed out").always();
        healthyCluster();
        EvidenceBundle b = gather(exporter.getAddress().getPort());
        Gap gap = b.gaps().stream().filter(g -> g.source() == Source.CLUSTER).findFirst().orElseThrow(() -> new AssertionError(b.gaps()));
        assertTrue(gap.failed() && gap.reason().contains("Kubernetes API answered HTTP 500"), gap.reason());
        Diagnosis d = classify(b);
        assertEquals(Family.DEVICE, d.family(), "the metrics still tell what happened");
        assertEquals(Decision.DENY, cordonVerdict(d));
        assertTrue(d.notes().stream().anyMatch(n -> n.contains("the Kubernetes API could not be read")), d.notes().toString());
        Plan plan = new RulesPlanner().plan(d, b);
        assertTrue(plan.escalationReasons().stream().anyMatch(r -> r.contains("HTTP 500")), plan.escalationReasons().toString());
    }

    @Test
    void anApiServerThatRateLimitsTheEventsListLeavesTheRestOfTheViewAndNamesTheEventsGap() {
        api.expect().get().withPath("/api/v1/events").andReturn(429, "Too many requests").always();
        healthyCluster();
        EvidenceBundle b = gather(exporter.getAddress().getPort());
        assertEquals(List.of(Source.EVENTS), b.gaps().stream().map(Gap::source).toList(), b.gaps().toString());
        assertTrue(b.gaps().get(0).reason().startsWith("events unreadable: Kubernetes API answered HTTP 429"), b.gaps().get(0).reason());
        assertEquals("h100-train", b.pool(), "the node was still read");
        assertTrue(new RulesPlanner().plan(classify(b), b).escalationReasons().stream().anyMatch(r -> r.contains("events unreadable")));
    }

    @Test
    void anApiServerThatDoesNotAnswerIsAGapWithinTheRequestTimeoutNotAHang() {
        api.expect().get().delay(30, TimeUnit.SECONDS).withPath("/api/v1/nodes/" + NODE).andReturn(200, "{}").always();
        healthyCluster();
        long began = System.nanoTime();
        EvidenceBundle b = gather(exporter.getAddress().getPort());
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        assertTrue(tookMs < 5_000, "gathering took " + tookMs + " ms; the server holds its answer 30 s");
        Gap gap = b.gaps().stream().filter(g -> g.source() == Source.CLUSTER).findFirst().orElseThrow(() -> new AssertionError(b.gaps()));
        assertTrue(gap.reason().contains("no answer within the request timeout") && gap.reason().contains("check the API server"),
                gap.reason());
        assertEquals(Decision.DENY, cordonVerdict(classify(b)));
    }

    @Test
    void anUnreachableExporterIsAMetricsGapNamingItsUrlAndNoFaultFoundEscalates() {
        healthyCluster();
        int closed = ServerProcess.freePort();
        EvidenceBundle b = gather(closed);
        Gap gap = b.gaps().stream().filter(g -> g.source() == Source.METRICS).findFirst().orElseThrow(() -> new AssertionError(b.gaps()));
        assertTrue(gap.reason().startsWith("exporter on " + NODE + " unreachable at http://127.0.0.1:" + closed + "/metrics"), gap.reason());
        Diagnosis d = classify(b);
        assertEquals(Family.NONE, d.family());
        assertTrue(d.confidence() < 0.5, d.toString());
        Plan plan = new RulesPlanner().plan(d, b);
        assertTrue(plan.escalationReasons().stream().anyMatch(r -> r.startsWith("no fault found, but metrics could not be read")),
                "a silent exporter is not a healthy GPU: " + plan.escalationReasons());
    }

    @Test
    void aLogTheApiServerFailsToServeIsALogsGapNamingThePod() {
        // a pod in trouble on the node: its log is read, and the API server answers 503
        api.expect().get().withPath(ALL_PODS_ON_NODE).andReturn(200, new PodListBuilder().addNewItem().withNewMetadata().withName("train-0")
                .withNamespace("ml").endMetadata().withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec().withNewStatus().withPhase("Running")
                .addNewContainerStatus().withName("main").withReady(false).withRestartCount(3).endContainerStatus().endStatus().endItem()
                .build()).always();
        api.expect().get().withPath("/api/v1/namespaces/ml/pods/train-0/log?container=main&tailLines=300&limitBytes=262144")
                .andReturn(503, "the server is currently unable to handle the request").always();
        healthyCluster();
        EvidenceBundle b = gather(exporter.getAddress().getPort());
        assertTrue(b.gaps().stream().anyMatch(g -> g.source() == Source.LOGS && g.failed()
                && g.reason().startsWith("log of ml/train-0/main unreadable: Kubernetes API answered HTTP 503")), b.gaps().toString());
    }
}
