package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node agent is recognised by its name, which its author chose: in a namespace where a tenant runs accelerator work
 * the name says nothing, and the pod is read as the tenant's.
 */
class AgentPodsTest {

    static final NodeAgents KNOWLEDGE = NodeAgents.load();

    static Pod daemonSetPod(String namespace, String daemonSet, int gpus) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName(daemonSet + "-q8v4t").withNamespace(namespace).addNewOwnerReference()
                .withApiVersion("apps/v1").withKind("DaemonSet").withName(daemonSet).withController(true).endOwnerReference().endMetadata();
        return gpus == 0 ? b.withNewSpec().withNodeName("h100-shared-03").addNewContainer().withName("agent").endContainer().endSpec().build()
                : b.withNewSpec().withNodeName("h100-shared-03").addNewContainer().withName("agent").withNewResources()
                        .addToLimits("nvidia.com/gpu", new Quantity(String.valueOf(gpus))).endResources().endContainer().endSpec().build();
    }

    static Pod trainer(String namespace) {
        return new PodBuilder().withNewMetadata().withName("trainer-0").withNamespace(namespace).endMetadata().withNewSpec()
                .addNewContainer().withName("trainer").withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8")).endResources()
                .endContainer().endSpec().build();
    }

    @Test
    void theDevicePluginInAPlatformNamespaceIsAnAgentWithoutReadingTheNamespace() {
        List<String> read = new ArrayList<>();
        AgentPods agents = new AgentPods(KNOWLEDGE, ns -> { read.add(ns); return List.of(trainer(ns)); });

        assertEquals(PodRole.DEVICE_PLUGIN, agents.roleOf(daemonSetPod("gpu-operator", "nvidia-device-plugin-daemonset", 0)));
        assertEquals(List.of(), read, "a listed namespace is the platform's: nothing to read");
    }

    @Test
    void aDaemonSetNamedLikeHealthValidationInANamespaceRunningGpuWorkIsTheTenants() {
        Pod lookalike = daemonSetPod("team-a", "team-a-gpu-health-validation", 0);
        AgentPods agents = new AgentPods(KNOWLEDGE, ns -> List.of(lookalike, trainer(ns)));

        assertEquals(PodRole.WORKLOAD, agents.roleOf(lookalike));
        assertTrue(agents.impersonates(lookalike));
    }

    @Test
    void anAgentInANamespaceOfItsOwnStaysAnAgentUnlisted() {
        Pod kubeletPlugin = daemonSetPod("nvidia-dra-driver-gpu", "nvidia-dra-driver-gpu-kubelet-plugin", 0);
        AgentPods agents = new AgentPods(KNOWLEDGE, ns -> List.of(kubeletPlugin));

        assertEquals(PodRole.OPERAND, agents.roleOf(kubeletPlugin));
        assertFalse(agents.impersonates(kubeletPlugin));
    }

    @Test
    void aDaemonSetPodThatRequestsGpusOutsideThePlatformsNamespacesIsNoAgent() {
        Pod requesting = daemonSetPod("perf-lab", "nccl-device-plugin-bench", 8);

        assertEquals(PodRole.WORKLOAD, new AgentPods(KNOWLEDGE, ns -> List.of()).roleOf(requesting));
    }

    @Test
    void eachNamespaceIsReadOnce() {
        Map<String, Integer> reads = new java.util.HashMap<>();
        AgentPods agents = new AgentPods(KNOWLEDGE, ns -> { reads.merge(ns, 1, Integer::sum); return List.of(trainer(ns)); });

        agents.roleOf(daemonSetPod("team-a", "team-a-device-plugin-shim", 0));
        agents.roleOf(daemonSetPod("team-a", "team-a-dcgm-exporter", 0));

        assertEquals(Map.of("team-a", 1), reads);
    }
}
