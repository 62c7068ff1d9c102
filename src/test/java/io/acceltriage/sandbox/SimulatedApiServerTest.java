package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatedApiServerTest {

    private SimulatedApiServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = SimulatedApiServer.start();
        client = server.client();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void appliedPodKeepsItsStatusIncludingDeviceHealthAndItsUid() {
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-0", "gpu-a100-01", "GPU-1234", "Unhealthy")
                .editMetadata().withUid("uid-vllm-0").endMetadata().build()));

        Pod pod = client.pods().inNamespace("serve").withName("vllm-0").get();

        assertEquals("uid-vllm-0", pod.getMetadata().getUid());
        assertEquals("Running", pod.getStatus().getPhase());
        ResourceHealth health = pod.getStatus().getContainerStatuses().get(0).getAllocatedResourcesStatus().get(0)
                .getResources().get(0);
        assertEquals("GPU-1234", health.getResourceID());
        assertEquals("Unhealthy", health.getHealth());
    }

    @Test
    void applyingTheSameObjectTwiceIsAConflict() {
        Map<String, Object> node = Fixtures.asMap(Fixtures.node("gpu-h100-01", "h100-train").build());
        server.apply(node);
        assertThrows(IllegalStateException.class, () -> server.apply(node));
    }

    @Test
    void jobSetAppliesAndListsThroughTheGenericClient() {
        server.apply(Map.of("apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet",
                "metadata", Map.of("name", "llm-pretrain", "namespace", "ml"),
                "spec", Map.of("failurePolicy", Map.of("maxRestarts", 3)),
                "status", Map.of("restarts", 1)));

        List<GenericKubernetesResource> jobSets = client.genericKubernetesResources("jobset.x-k8s.io/v1alpha2",
                "JobSet").inNamespace("ml").list().getItems();

        assertEquals(1, jobSets.size());
        assertEquals("llm-pretrain", jobSets.get(0).getMetadata().getName());
        assertEquals(1, ((Map<?, ?>) jobSets.get(0).getAdditionalProperties().get("status")).get("restarts"));
    }

    @Test
    void resourceSliceIsClusterScoped() {
        server.apply(Map.of("apiVersion", "resource.k8s.io/v1beta1", "kind", "ResourceSlice",
                "metadata", Map.of("name", "gpu-h100-01-gpu.nvidia.com"),
                "spec", Map.of("driver", "gpu.nvidia.com", "nodeName", "gpu-h100-01",
                        "pool", Map.of("name", "gpu-h100-01", "generation", 1, "resourceSliceCount", 1))));

        assertEquals(1, client.genericKubernetesResources("resource.k8s.io/v1beta1", "ResourceSlice")
                .list().getItems().size());
    }

    @Test
    void nodeCanBeCordonedByEditAndByStrategicMergePatch() {
        server.apply(Fixtures.asMap(Fixtures.node("gpu-h100-01", "h100-train").build()));
        server.apply(Fixtures.asMap(Fixtures.node("gpu-h100-02", "h100-train").build()));

        client.nodes().withName("gpu-h100-01").edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true)
                .endSpec().build());
        client.nodes().withName("gpu-h100-02").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"spec\":{\"unschedulable\":true}}");

        assertTrue(client.nodes().withName("gpu-h100-01").get().getSpec().getUnschedulable());
        assertTrue(client.nodes().withName("gpu-h100-02").get().getSpec().getUnschedulable());
        assertEquals("8", client.nodes().withName("gpu-h100-02").get().getStatus().getAllocatable()
                .get("nvidia.com/gpu").toString());
    }

    @Test
    void podLogsAreServedCurrentAndPreviousWithTailLines() {
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-0", "gpu-a100-01", "GPU-1", "Healthy").build()));
        server.putLog("serve", "vllm-0", "vllm", false, "line 1\nline 2\nline 3\n");
        server.putLog("serve", "vllm-0", "vllm", true, "RuntimeError: CUDA error: unspecified launch failure\n");

        assertEquals("line 1\nline 2\nline 3\n",
                client.pods().inNamespace("serve").withName("vllm-0").inContainer("vllm").getLog());
        assertEquals("line 3\n",
                client.pods().inNamespace("serve").withName("vllm-0").inContainer("vllm").tailingLines(1).getLog());
        assertEquals("RuntimeError: CUDA error: unspecified launch failure\n",
                client.pods().inNamespace("serve").withName("vllm-0").inContainer("vllm").terminated().getLog());
    }

    @Test
    void missingLogsAnswerLikeTheApiServer() {
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-0", "gpu-a100-01", "GPU-1", "Healthy").build()));

        KubernetesClientException noPrevious = assertThrows(KubernetesClientException.class,
                () -> client.pods().inNamespace("serve").withName("vllm-0").inContainer("vllm").terminated()
                        .getLog());
        assertEquals(400, noPrevious.getCode());
        assertTrue(noPrevious.getMessage().contains("previous terminated container \"vllm\""),
                noPrevious.getMessage());
        KubernetesClientException badContainer = assertThrows(KubernetesClientException.class,
                () -> client.pods().inNamespace("serve").withName("vllm-0").inContainer("nope").getLog());
        assertEquals(400, badContainer.getCode());
        KubernetesClientException noPod = assertThrows(KubernetesClientException.class,
                () -> client.pods().inNamespace("serve").withName("ghost").inContainer("vllm").getLog());
        assertEquals(404, noPod.getCode());
    }

    @Test
    void evictionIsRefusedWhileABudgetAllowsNoDisruptionAndDeletesOtherwise() throws Exception {
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-0", "gpu-a100-01", "GPU-1", "Healthy").build()));
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-1", "gpu-a100-02", "GPU-2", "Healthy").build()));
        server.apply(Fixtures.asMap(new PodDisruptionBudgetBuilder().withNewMetadata().withName("vllm")
                .withNamespace("serve").endMetadata()
                .withNewSpec().withNewMinAvailable(2).withNewSelector().addToMatchLabels("app", "vllm")
                .endSelector().endSpec()
                .withNewStatus().withCurrentHealthy(2).withDesiredHealthy(2).withExpectedPods(2)
                .withDisruptionsAllowed(0).endStatus().build()));

        assertFalse(client.pods().inNamespace("serve").withName("vllm-0").evict(), "fabric8 reports a 429 as false");
        HttpResponse<String> refused = post(server.url() + "api/v1/namespaces/serve/pods/vllm-0/eviction",
                "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"vllm-0\"}}");
        assertEquals(429, refused.statusCode());
        assertTrue(refused.body().contains("Cannot evict pod as it would violate the pod's disruption budget."),
                refused.body());
        assertNotNull(client.pods().inNamespace("serve").withName("vllm-0").get());

        client.policy().v1().podDisruptionBudget().inNamespace("serve").withName("vllm").delete();
        assertTrue(client.pods().inNamespace("serve").withName("vllm-0").evict());
        assertNull(client.pods().inNamespace("serve").withName("vllm-0").get());
    }

    private static HttpResponse<String> post(String url, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void listsHonourFieldSelectorsTheCrudServerIgnores() {
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-0", "gpu-a100-01", "GPU-1", "Healthy").build()));
        server.apply(Fixtures.asMap(Fixtures.gpuPod("serve", "vllm-1", "gpu-a100-02", "GPU-2", "Healthy").build()));

        List<Pod> onNode = client.pods().inAnyNamespace().withField("spec.nodeName", "gpu-a100-02").list().getItems();

        assertEquals(List.of("vllm-1"), onNode.stream().map(p -> p.getMetadata().getName()).toList());
        assertFalse(client.pods().inNamespace("serve").withLabelIn("app", "vllm", "other").list().getItems()
                .isEmpty());
    }
}
