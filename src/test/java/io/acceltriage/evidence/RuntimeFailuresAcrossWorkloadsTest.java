package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime's error in a container's status is the tenant's own (its image or spec may cause it) until the same error
 * stops another tenant's containers on the same node: one tenant cannot write another's pod status, so the node's runtime
 * is speaking, and the collector reads it as the platform's.
 */
class RuntimeFailuresAcrossWorkloadsTest {

    static final String NODE = "a10g-infer-07";

    static String hookError(String task) {
        return "failed to create containerd task: OCI runtime create failed: error running hook #0: nvidia-container-cli: mount error:"
                + " file creation failed: /run/containerd/io.containerd.runtime.v2.task/k8s.io/" + task
                + "/rootfs/run/nvidia-persistenced/socket: no such device or address: unknown";
    }

    static Observation cannotStart(String namespace, String pod, String node, String message) {
        return new Observation(Source.CLUSTER, namespace + "/" + pod + " waiting RunContainerError", new Facts.ContainerState(namespace, pod,
                "main", node, PodRole.WORKLOAD, "waiting", "RunContainerError", 6, null, null, false, message));
    }

    @Test
    void theSameErrorInContainersOfTwoNamespacesOnOneNodeIsThePlatforms() {
        List<Observation> obs = new ArrayList<>(List.of(cannotStart("speech", "asr-r4t7w", NODE, hookError("5f0c2e1d9a7b")),
                cannotStart("search", "rerank-r4t7w", NODE, hookError("9e1d7c3b2a40"))));

        ClusterCollector.corroborateRuntimeFailures(obs);

        assertEquals(List.of(Trust.PLATFORM, Trust.PLATFORM), obs.stream().map(Observation::trust).toList());
    }

    @Test
    void twoWorkloadsOfOneNamespaceAreStillOneTenantsWord() {
        List<Observation> obs = new ArrayList<>(List.of(cannotStart("speech", "asr-a", NODE, hookError("5f0c2e1d9a7b")),
                cannotStart("speech", "tts-b", NODE, hookError("9e1d7c3b2a40"))));

        ClusterCollector.corroborateRuntimeFailures(obs);

        assertNull(obs.get(0).trust(), "the trust a workload's container has by kind: the tenant's");
        assertNull(obs.get(1).trust());
    }

    @Test
    void theSameErrorOnTwoDifferentNodesSaysNothingAboutEither() {
        List<Observation> obs = new ArrayList<>(List.of(cannotStart("speech", "asr-a", NODE, hookError("5f0c2e1d9a7b")),
                cannotStart("search", "rerank-b", "a10g-infer-08", hookError("9e1d7c3b2a40"))));

        ClusterCollector.corroborateRuntimeFailures(obs);

        assertNull(obs.get(0).trust());
        assertNull(obs.get(1).trust());
    }

    @Test
    void differentErrorsOnOneNodeSayNothing() {
        List<Observation> obs = new ArrayList<>(List.of(cannotStart("speech", "asr-a", NODE, hookError("5f0c2e1d9a7b")),
                cannotStart("search", "rerank-b", NODE, "failed to create containerd task: exec: \"/serve\": permission denied")));

        ClusterCollector.corroborateRuntimeFailures(obs);

        assertNull(obs.get(0).trust());
        assertNull(obs.get(1).trust());
    }
}
