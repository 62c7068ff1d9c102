package io.acceltriage.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.triage.ResponderFactory;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capture} against a simulated cluster of its own: what it writes replays to the same
 * conclusion as the live triage, and what must stay in the cluster does.
 */
@QuarkusTest
class CaptureTest {

    private static SimulatedCluster world;

    @Inject
    ResponderFactory factory;

    @Inject
    Policy policy;

    @BeforeAll
    static void start() {
        world = SimulatedCluster.start();
    }

    @AfterAll
    static void stop() {
        world.close();
    }

    private static final MetricsSource EXPORTERS = node -> {
        if (!world.hasExporter(node)) throw new MetricsSource.EvidenceUnavailable("no exporter on " + node);
        return new NodeSamples(ExpositionParser.parse(world.exporterText(node)), List.of());
    };

    @Test
    void aCapturedNodeFaultReplaysToTheFamilyTheLiveTriageFound(@TempDir Path dir) throws Exception {
        world.reset();
        world.inject(Fault.onNode("device-plugin-crash", "gpu-h100-04"));
        Subject subject = Subject.node("gpu-h100-04");
        Family live = factory.build(new io.acceltriage.cluster.KubeApi(world.client()), EXPORTERS, policy).assess(subject, List.of()).diagnosis().family();
        assertNotEquals(Family.NONE, live, "the injected fault shows live");

        Path file = dir.resolve("captured.yaml");
        Files.writeString(file, new Capture(world.client(), EXPORTERS, factory.nodeAgents()).capture(subject, "GpuDevicePluginDown", Instant.now()));
        Scenario scenario = ScenarioLoader.load(file);

        assertEquals("none", scenario.spec().expect().family(), "expect is left for the operator");
        assertTrue(Files.readString(file).contains("# Set by the operator"));
        assertEquals(live, new Replay(factory, policy).replay(file, scenario, null).family());
    }

    @Test
    void aCapturedPodFaultReplaysToTheFamilyTheLiveTriageFound(@TempDir Path dir) throws Exception {
        world.reset();
        world.inject(Fault.onPod("cuda-oom", "research/jupyter-alice-0"));
        Subject subject = Subject.pod("research", "jupyter-alice-0");
        Family live = factory.build(new io.acceltriage.cluster.KubeApi(world.client()), EXPORTERS, policy).assess(subject, List.of()).diagnosis().family();

        Path file = dir.resolve("captured-pod.yaml");
        Files.writeString(file, new Capture(world.client(), EXPORTERS, factory.nodeAgents()).capture(subject, null, Instant.now()));

        assertEquals(Family.APPLICATION, live);
        assertEquals(live, new Replay(factory, policy).replay(file, ScenarioLoader.load(file), null).family());
    }

    @Test
    void aPlantedSecretNeverReachesTheCapturedFile(@TempDir Path dir) throws Exception {
        world.reset();
        var client = world.client();
        client.secrets().inNamespace("research").resource(new SecretBuilder().withNewMetadata().withName("hub-token")
                .withNamespace("research").endMetadata().addToStringData("token", "planted-secret-object-value").build()).create();
        client.pods().inNamespace("research").resource(new PodBuilder().withNewMetadata().withName("leaky-0").withNamespace("research")
                .addToAnnotations("kubectl.kubernetes.io/last-applied-configuration", "{\"env\":\"planted-in-last-applied\"}")
                .endMetadata().withNewSpec().withNodeName("gpu-a100-06").addNewContainer().withName("main").withImage("trainer:1")
                .addNewEnv().withName("HF_TOKEN").withValue("planted-hf-token-value").endEnv()
                .addNewEnv().withName("DB_PASSWORD").withValue("planted-db-password").endEnv()
                .addNewEnv().withName("API_KEY_FROM_SECRET").withNewValueFrom().withNewSecretKeyRef("token", "hub-token", false)
                        .endValueFrom().endEnv()
                .addNewEnv().withName("MODEL").withValue("llama-3-8b").endEnv()
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
        world.apiServer().putLog("research", "leaky-0", "main", false, String.join("\n",
                "connecting to https://trainer:planted-url-password@db.internal:5432/runs",
                "Authorization: Bearer plantedbearertoken0123456789",
                "aws key AKIAPLANTEDKEY123456 and aws_secret_access_key=planted/aws/secret+value",
                "gcp key AIzaSyPlantedGcpKey000000000000000000000",
                "epoch 3 loss 0.42"));

        String text = new Capture(client, EXPORTERS, factory.nodeAgents()).capture(Subject.pod("research", "leaky-0"), null, Instant.now());

        for (String planted : List.of("planted-secret-object-value", "planted-in-last-applied", "planted-hf-token-value",
                "planted-db-password", "planted-url-password", "plantedbearertoken", "AKIAPLANTEDKEY", "planted/aws/secret",
                "AIzaSyPlantedGcpKey", "managedFields", "kind: Secret")) {
            assertFalse(text.contains(planted), "the capture holds " + planted);
        }
        assertTrue(text.contains("secretKeyRef"), "a secret reference stays a reference");
        assertTrue(text.contains("llama-3-8b") && text.contains("epoch 3 loss 0.42"), "ordinary values and log lines stay");
        Path file = dir.resolve("leaky.yaml");
        Files.writeString(file, text);
        assertEquals("research", ((Map<?, ?>) ScenarioLoader.load(file).spec().alert().get("labels")).get("namespace"));
    }
}
