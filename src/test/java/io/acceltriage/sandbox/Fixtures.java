package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.Map;

/** Builders for the objects tests apply, so a test states only what it is about. */
final class Fixtures {

    private Fixtures() {
    }

    static Map<String, Object> asMap(HasMetadata object) {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = ObjectStore.JSON.convertValue(
                ObjectStore.parse(Kinds.SERIALIZATION.asJson(object)), Map.class);
        return map;
    }

    static NodeBuilder node(String name, String pool) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels("acceltriage.io/pool", pool)
                .endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus()
                .addToCapacity("nvidia.com/gpu", new Quantity("8"))
                .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").endCondition()
                .endStatus();
    }

    static PodBuilder gpuPod(String namespace, String name, String node, String gpuUuid, String health) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).addToLabels("app", "vllm").endMetadata()
                .withNewSpec().withNodeName(node)
                .addNewContainer().withName("vllm").withImage("vllm/vllm-openai:v0.11.0")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources()
                .endContainer().endSpec()
                .withNewStatus().withPhase("Running")
                .addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewContainerStatus().withName("vllm").withReady(true).withRestartCount(0)
                .withNewState().withNewRunning().withStartedAt("2026-11-29T08:00:00Z").endRunning().endState()
                .addNewAllocatedResourcesStatus().withName("nvidia.com/gpu")
                .addNewResource().withResourceID(gpuUuid).withHealth(health).endResource()
                .endAllocatedResourcesStatus()
                .endContainerStatus().endStatus();
    }
}
