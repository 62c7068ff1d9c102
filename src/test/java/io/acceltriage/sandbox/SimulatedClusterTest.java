package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatedClusterTest {

    private static SimulatedCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        cluster = SimulatedCluster.start(Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC));
        client = cluster.client();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void reset() {
        cluster.reset();
    }

    @Test
    void seedsTwoGpuPoolsTpuNodesAndTheWorkloads() {
        List<Node> nodes = client.nodes().list().getItems();
        assertEquals(12, count(nodes, "h100-train"));
        assertEquals(10, count(nodes, "a100-serve"));
        assertEquals(2, count(nodes, "tpu-v5e"));
        assertEquals(2 * 22, client.pods().inNamespace("gpu-operator").list().getItems().size());
        List<Pod> vllm = client.pods().inNamespace("serve").withLabel("app", "vllm-llama").list().getItems();
        assertEquals(3, vllm.stream().map(p -> p.getSpec().getNodeName()).distinct().count());
        assertEquals(1, client.policy().v1().podDisruptionBudget().inNamespace("serve").withName("vllm-llama").get()
                .getStatus().getDisruptionsAllowed());
        assertEquals(4, client.pods().inNamespace("ml").withLabel("jobset.sigs.k8s.io/jobset-name", "llm-pretrain")
                .list().getItems().size());
    }

    @Test
    void exporterTextIsValidExpositionWithPodLabelsOnAllocatedGpus() {
        String text = cluster.exporterText("gpu-a100-03");

        Map<String, String> types = ExpositionParser.parse(text);
        assertEquals("gauge", types.get("DCGM_FI_DEV_XID_ERRORS"));
        assertEquals("counter", types.get("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"));
        assertTrue(Pattern.compile("DCGM_FI_DEV_GPU_UTIL\\{gpu=\"0\",UUID=\"GPU-[0-9a-f-]{36}\",pci_bus_id=\"00000000:00:04.0\","
                + "device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"gpu-a100-03\","
                + "DCGM_FI_DRIVER_VERSION=\"550.127.05\",container=\"vllm\",namespace=\"serve\",pod=\"vllm-llama-[^\"]+\"} \\d+")
                .matcher(text).find(), text);
        assertTrue(text.contains("DCGM_FI_DEV_XID_ERRORS{gpu=\"7\","), text);
        ExpositionParser.parse(cluster.exporterText("tpu-v5e-01"));
    }

    @Test
    void fatalXidMarksTheGpuUnhealthyAndCrashLoopsItsPod() {
        Pod before = client.pods().inNamespace("serve").withLabel("app", "vllm-llama").list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName().equals("gpu-a100-04")).findFirst().orElseThrow();

        FiredAlert alert = cluster.inject(Fault.xid("gpu-a100-04", 0, 79));

        assertEquals(Map.of("alertname", "GpuXidDeviceFault", "node", "gpu-a100-04", "gpu", "0", "xid", "79",
                "severity", "critical"), alert.labels());
        assertEquals("firing", alert.status());
        assertEquals(FiredAlert.ZERO_TIME, alert.endsAt());
        assertEquals("2026-11-30T10:00:00Z", alert.startsAt());
        assertTrue(alert.fingerprint().matches("[0-9a-f]{16}"));
        Node node = client.nodes().withName("gpu-a100-04").get();
        assertEquals("8", node.getStatus().getCapacity().get("nvidia.com/gpu").toString());
        assertEquals("7", node.getStatus().getAllocatable().get("nvidia.com/gpu").toString());
        Pod pod = client.pods().inNamespace("serve").withName(before.getMetadata().getName()).get();
        ContainerStatus status = pod.getStatus().getContainerStatuses().get(0);
        assertEquals("CrashLoopBackOff", status.getState().getWaiting().getReason());
        assertEquals(3, status.getRestartCount());
        assertEquals(1, status.getLastState().getTerminated().getExitCode());
        assertEquals("Unhealthy", status.getAllocatedResourcesStatus().get(0).getResources().get(0).getHealth());
        String previous = client.pods().inNamespace("serve").withName(pod.getMetadata().getName()).inContainer("vllm")
                .terminated().getLog();
        assertTrue(previous.contains("GPU is lost"), previous);
        assertTrue(client.v1().events().inNamespace("serve").list().getItems().stream()
                .anyMatch(e -> e.getReason().equals("BackOff")
                        && e.getInvolvedObject().getName().equals(pod.getMetadata().getName())));
        assertTrue(cluster.exporterText("gpu-a100-04").contains("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",UUID="));
        assertTrue(cluster.exporterText("gpu-a100-04").lines().anyMatch(l -> l.startsWith("DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"")
                && l.endsWith(" 79")));
        assertEquals(0, client.policy().v1().podDisruptionBudget().inNamespace("serve").withName("vllm-llama").get()
                .getStatus().getDisruptionsAllowed());
    }

    @Test
    void alertNamesFollowTheXidFamily() {
        assertEquals("GpuXidApplicationFault", cluster.inject(Fault.xid("gpu-h100-05", 1, 13)).labels().get("alertname"));
        assertEquals("GpuXidInfrastructureFault", cluster.inject(Fault.xid("gpu-h100-05", 2, 61)).labels().get("alertname"));
        FiredAlert unknown = cluster.inject(Fault.xid("gpu-h100-05", 3, 999));
        assertEquals("GpuXidDeviceFault", unknown.labels().get("alertname"));
        assertEquals("warning", unknown.labels().get("severity"));
    }

    @Test
    void devicePluginCrashZeroesCapacityAndLeavesAPendingGpuPod() {
        FiredAlert alert = cluster.inject(Fault.onNode("device-plugin-crash", "gpu-h100-06"));

        assertEquals("GpuDevicePluginUnavailable", alert.labels().get("alertname"));
        Node node = client.nodes().withName("gpu-h100-06").get();
        assertEquals("0", node.getStatus().getCapacity().get("nvidia.com/gpu").toString());
        assertEquals("0", node.getStatus().getAllocatable().get("nvidia.com/gpu").toString());
        assertTrue(client.pods().inNamespace("gpu-operator").list().getItems().stream()
                .anyMatch(p -> p.getStatus().getPhase().equals("Pending")));
        assertTrue(client.v1().events().inNamespace("gpu-operator").list().getItems().stream()
                .anyMatch(e -> e.getReason().equals("FailedScheduling")));
    }

    @Test
    void nvmlMismatchTakesTheExporterDown() {
        cluster.inject(Fault.onNode("nvml-mismatch", "gpu-h100-07"));

        assertThrows(ExporterUnavailableException.class, () -> cluster.exporterText("gpu-h100-07"));
        Pod plugin = client.pods().inNamespace("gpu-operator").list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName().equals("gpu-h100-07")
                        && p.getMetadata().getName().startsWith("nvidia-device-plugin")).findFirst().orElseThrow();
        assertTrue(client.pods().inNamespace("gpu-operator").withName(plugin.getMetadata().getName())
                .inContainer("nvidia-device-plugin").terminated().getLog()
                .contains("Failed to initialize NVML: Driver/library version mismatch"));
    }

    @Test
    void cudaOomCrashLoopsThePodAndFillsItsGpuMemory() {
        Pod ft = client.pods().inNamespace("research").withLabel("job-name", "lora-ft").list().getItems().get(0);

        FiredAlert alert = cluster.inject(Fault.onPod("cuda-oom", "research/" + ft.getMetadata().getName()));

        assertEquals(Map.of("alertname", "KubePodCrashLooping", "namespace", "research", "pod",
                ft.getMetadata().getName(), "container", "train", "severity", "warning"), alert.labels());
        assertTrue(client.pods().inNamespace("research").withName(ft.getMetadata().getName()).inContainer("train")
                .terminated().getLog().contains("torch.OutOfMemoryError: CUDA out of memory"));
        assertEquals("8", client.nodes().withName("gpu-a100-08").get().getStatus().getAllocatable()
                .get("nvidia.com/gpu").toString());
    }

    @Test
    void nodeNotReadyTaintsTheNodeAndSilencesItsExporter() {
        FiredAlert alert = cluster.inject(Fault.onNode("node-not-ready", "gpu-h100-02"));

        assertEquals("KubeNodeNotReady", alert.labels().get("alertname"));
        Node node = client.nodes().withName("gpu-h100-02").get();
        assertEquals("Unknown", node.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready"))
                .findFirst().orElseThrow().getStatus());
        assertTrue(node.getSpec().getTaints().stream().anyMatch(t -> t.getKey().equals("node.kubernetes.io/unreachable")));
        assertThrows(ExporterUnavailableException.class, () -> cluster.exporterText("gpu-h100-02"));
    }

    @Test
    void badFaultsSayWhatToSend() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cluster.inject(Fault.onNode("melt", "gpu-h100-01")))
                .getMessage().contains("one of [xid, dbe-ecc"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cluster.inject(Fault.xid("gpu-x-01", 0, 79)))
                .getMessage().contains("does not exist"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cluster.inject(Fault.xid("gpu-h100-01", 8, 79)))
                .getMessage().contains("gpu must be between 0 and 7"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cluster.inject(Fault.onPod("cuda-oom", null)))
                .getMessage().contains("pod is required"));
    }

    @Test
    void resetRestoresTheSeededWorld() {
        cluster.inject(Fault.xid("gpu-a100-03", 0, 79));
        cluster.reset();

        assertEquals("8", client.nodes().withName("gpu-a100-03").get().getStatus().getAllocatable()
                .get("nvidia.com/gpu").toString());
        assertTrue(cluster.exporterText("gpu-a100-03").lines()
                .filter(l -> l.startsWith("DCGM_FI_DEV_XID_ERRORS{")).allMatch(l -> l.endsWith(" 0")));
    }

    @Test
    void anEvictedReplicaComesBackReadyOnAnotherSchedulableNode() {
        Pod broken = client.pods().inNamespace("serve").withLabel("app", "vllm-llama").list().getItems().stream()
                .filter(p -> p.getSpec().getNodeName().equals("gpu-a100-03")).findFirst().orElseThrow();
        cluster.inject(Fault.xid("gpu-a100-03", 0, 79));
        client.nodes().withName("gpu-a100-03").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true)
                .endSpec().build());
        client.nodes().withName("gpu-a100-01").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true)
                .endSpec().build());

        // the budget allows no disruption, but an unready pod may go while the budget is met
        assertTrue(client.pods().inNamespace("serve").withName(broken.getMetadata().getName()).evict());

        List<Pod> replicas = client.pods().inNamespace("serve").withLabel("app", "vllm-llama").list().getItems();
        assertEquals(3, replicas.size());
        Pod replacement = replicas.stream().filter(p -> !p.getMetadata().getName().equals(broken.getMetadata().getName()))
                .filter(p -> !Set.of("gpu-a100-04", "gpu-a100-05").contains(p.getSpec().getNodeName()))
                .findFirst().orElseThrow();
        assertEquals("gpu-a100-02", replacement.getSpec().getNodeName());
        assertTrue(replacement.getMetadata().getName().startsWith("vllm-llama-7d9f5c6b8-"));
        assertTrue(replacement.getStatus().getContainerStatuses().get(0).getReady());
        assertEquals(1, client.policy().v1().podDisruptionBudget().inNamespace("serve").withName("vllm-llama").get()
                .getStatus().getDisruptionsAllowed());
    }

    @Test
    void aDeletedGangWorkerIsRecreatedOnTheNodeItLeftOrOnAFreeH100NodeOnceThatOneIsCordoned() {
        Pod worker = client.pods().inNamespace("ml").withLabel("batch.kubernetes.io/job-completion-index", "2")
                .list().getItems().get(0);
        String left = worker.getSpec().getNodeName();

        client.pods().inNamespace("ml").withName(worker.getMetadata().getName()).delete();

        Pod replacement = client.pods().inNamespace("ml").withLabel("batch.kubernetes.io/job-completion-index", "2")
                .list().getItems().get(0);
        assertNotEquals(worker.getMetadata().getName(), replacement.getMetadata().getName());
        assertEquals(left, replacement.getSpec().getNodeName(), "back in place: the node holds its image and the GPUs it freed");
        assertEquals(8, FaultInjector.gpuIds(replacement.getStatus().getContainerStatuses().get(0)).size());

        client.nodes().withName(left).edit(n -> { n.getSpec().setUnschedulable(true); return n; });
        client.pods().inNamespace("ml").withName(replacement.getMetadata().getName()).delete();

        Pod moved = client.pods().inNamespace("ml").withLabel("batch.kubernetes.io/job-completion-index", "2")
                .list().getItems().get(0);
        assertEquals("gpu-h100-05", moved.getSpec().getNodeName());
        assertEquals(8, FaultInjector.gpuIds(moved.getStatus().getContainerStatuses().get(0)).size());
    }

    @Test
    void fingerprintIsStableAndDependsOnLabels() {
        Map<String, String> labels = Map.of("alertname", "KubeNodeNotReady", "node", "gpu-h100-01");
        assertEquals(FiredAlert.fingerprint(labels), FiredAlert.fingerprint(Map.copyOf(labels)));
        assertNotEquals(FiredAlert.fingerprint(labels), FiredAlert.fingerprint(Map.of("alertname", "KubeNodeNotReady",
                "node", "gpu-h100-02")));
    }

    private static long count(List<Node> nodes, String pool) {
        return nodes.stream().filter(n -> pool.equals(n.getMetadata().getLabels().get("acceltriage.io/pool"))).count();
    }

    /** The simulated node agent answers the reset handshake as nvidia-smi would: not while the operator's operands use the GPU. */
    @Test
    void theNodeAgentResetsAGpuOnlyOnceTheOperandsArePaused() {
        String node = "gpu-h100-07";
        cluster.inject(Fault.xid(node, 3, 48));
        client.nodes().withName(node).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editMetadata()
                .addToLabels("acceltriage.io/gpu-reset", "3").endMetadata().build());
        assertEquals("failed", awaitLabel(node, "acceltriage.io/gpu-reset-state"));
        assertTrue(client.nodes().withName(node).get().getMetadata().getAnnotations().get("acceltriage.io/gpu-reset-message")
                .contains("pause the GPU operator's operands first"));

        client.nodes().withName(node).edit(n -> new io.fabric8.kubernetes.api.model.NodeBuilder(n).editMetadata()
                .addToLabels("nvidia.com/gpu.deploy.device-plugin", "false").addToLabels("nvidia.com/gpu.deploy.dcgm-exporter", "false")
                .removeFromLabels("acceltriage.io/gpu-reset-state").endMetadata().build());
        assertEquals("succeeded", awaitLabel(node, "acceltriage.io/gpu-reset-state"));
        assertEquals("8", client.nodes().withName(node).get().getStatus().getAllocatable().get("nvidia.com/gpu").getAmount());
        assertTrue(cluster.exporterText(node).lines().anyMatch(l -> l.startsWith("DCGM_FI_DEV_XID_ERRORS{gpu=\"3\"") && l.endsWith(" 0")));
    }

    private static String awaitLabel(String node, String label) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            String v = client.nodes().withName(node).get().getMetadata().getLabels().get(label);
            if (v != null) return v;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return null;
    }
}
