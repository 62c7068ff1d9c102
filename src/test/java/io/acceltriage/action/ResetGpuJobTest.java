package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * reset-gpu with {@code repair.resetMethod: job} against the simulated cluster, whose Job controller runs
 * {@code nvidia-smi --gpu-reset -i N} Jobs as the node agent would answer them: the GPU operator's operands
 * paused for the Job and restored after (also when it fails), and on a DRA node a DeviceTaintRule on just that
 * device while it resets.
 */
class ResetGpuJobTest {

    static final String NODE = "gpu-a100-04";

    SimulatedCluster cluster;
    KubernetesClient client;
    Executor executor;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        Policy p = Policy.parse("p.yaml", """
                apiVersion: acceltriage.io/v1
                kind: Policy
                repair:
                  resetMethod: job
                  resetTimeout: 20s
                  resetJob: {namespace: acceltriage}
                """.getBytes(StandardCharsets.UTF_8));
        Database database = TestDatabases.h2();
        MetricsSource exporter = node -> new NodeSamples(ExpositionParser.parse(cluster.exporterText(node)), List.of());
        executor = new Executor(client, database, TestAudit.on(database), Leadership.ALWAYS, MitigationsTest.FAST, () -> p,
                new TelemetryGpus(exporter));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    ActionRecord reset(String target) {
        return executor.carryOut("inc-" + UUID.randomUUID().toString().substring(0, 8), MitigationsTest.proposal(ActionKind.RESET_GPU, target),
                MitigationsTest.allow());
    }

    Node node() {
        return client.nodes().withName(NODE).get();
    }

    List<Job> resetJobs() {
        return client.batch().v1().jobs().inNamespace("acceltriage").withLabel(ResetJob.JOB_LABEL, NODE).list().getItems();
    }

    @Test
    void aResetJobPinnedToTheNodeResetsTheGpuWithItsOperandsPausedAndTheNodeComesBack() {
        cluster.inject(Fault.xid(NODE, 1, 48));

        ActionRecord r = reset(NODE + "/1");

        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains("paused and restored [device-plugin, dcgm-exporter]"), r.detail());
        assertTrue(r.detail().contains("reset Job: GPU 00000000:00:05.0 was successfully reset. (Job acceltriage/reset-gpu1-" + NODE),
                "nvidia-smi's words from the Job's log: " + r.detail());
        assertTrue(resetJobs().isEmpty(), "a Job that succeeded is cleaned up");
        Node n = node();
        assertFalse(Pods.fenced(n), "back in service");
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.device-plugin"));
        assertNull(n.getMetadata().getLabels().get(ResetGpu.REQUEST), "no node-agent handshake was used");
    }

    @Test
    void aResetJobThatFailsLeavesTheNodeFencedItsJobForAPersonAndTheOperandsRestored() {
        cluster.inject(Fault.xid(NODE, 2, 79));

        ActionRecord r = reset(NODE + "/2");

        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("the reset Job could not reset GPU 2: Unable to reset GPU 00000000:00:06.0: XID 79"), r.detail());
        Node n = node();
        assertTrue(Pods.fenced(n));
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.device-plugin"), "restored on failure too");
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.dcgm-exporter"));
        assertNull(n.getMetadata().getAnnotations().get(ResetGpu.PAUSED));
        assertEquals(1, resetJobs().size(), "the failed Job stays");
        var spec = resetJobs().get(0).getSpec().getTemplate().getSpec();
        assertEquals(NODE, spec.getNodeName(), "pinned to the node");
        assertTrue(spec.getContainers().get(0).getSecurityContext().getPrivileged(), "privileged, as nvidia-smi --gpu-reset needs");
        assertEquals(List.of("nvidia-smi", "--gpu-reset", "-i", "2"), spec.getContainers().get(0).getCommand());
    }

    @Test
    void onADraNodeJustThatDeviceIsTaintedWhileItResetsAndTheRuleIsRemovedWhenItComesBack() {
        // NVIDIA's DRA driver publishes the node's GPUs in a ResourceSlice, pool named after the node.
        cluster.apiServer().apply(Map.of("apiVersion", "resource.k8s.io/v1beta1", "kind", "ResourceSlice",
                "metadata", Map.of("name", NODE + "-gpu.nvidia.com-x7k2q"),
                "spec", Map.of("driver", "gpu.nvidia.com", "nodeName", NODE, "pool", Map.of("name", NODE, "generation", 1, "resourceSliceCount", 1),
                        "devices", List.of(device(0), device(1), device(2)))));
        cluster.inject(Fault.xid(NODE, 1, 48));
        String rule = DeviceTaints.ruleName(NODE, 1);
        var rules = client.genericKubernetesResources("resource.k8s.io/v1alpha3", "DeviceTaintRule");
        GenericKubernetesResource[] seen = new GenericKubernetesResource[1];
        Thread watcher = new Thread(() -> MitigationsTest.FAST.until(java.time.Duration.ofSeconds(20), () -> {
            seen[0] = seen[0] != null ? seen[0] : rules.withName(rule).get();
            return seen[0] != null;
        }));
        watcher.start();

        ActionRecord r = reset(NODE + "/1");

        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains("marked DeviceTaintRule " + rule + " (gpu.nvidia.com " + NODE + "/gpu-1)"), r.detail());
        assertTrue(r.detail().contains("removed the DeviceTaintRule"), r.detail());
        assertNull(rules.withName(rule).get(), "removed on return");
        MitigationsTest.FAST.until(java.time.Duration.ofSeconds(1), () -> seen[0] != null);
        assertNotEquals(null, seen[0], "the rule existed while the GPU reset");
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) seen[0].getAdditionalProperties().get("spec");
        assertEquals(Map.of("driver", "gpu.nvidia.com", "pool", NODE, "device", "gpu-1"), spec.get("deviceSelector"));
        assertEquals("NoSchedule", ((Map<?, ?>) spec.get("taint")).get("effect"));
    }

    static Map<String, Object> device(int index) {
        return Map.of("name", "gpu-" + index, "basic", Map.of("attributes", Map.of("index", Map.of("int", index),
                "uuid", Map.of("string", "GPU-" + UUID.nameUUIDFromBytes((NODE + "/gpu/" + index).getBytes(StandardCharsets.UTF_8))))));
    }
}
