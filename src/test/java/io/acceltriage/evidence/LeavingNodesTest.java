package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Node whose deletion was asked for (its provisioner consolidating it, the autoscaler scaling it down, a person) is read
 * as such, with the finalizers that drain it first: the classifier reads its agents going away as that removal.
 */
class LeavingNodesTest {

    static NodeBuilder gpuNode(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).addToLabels("nvidia.com/gpu.product", "NVIDIA-L40S").endMetadata()
                .withNewSpec().endSpec().withNewStatus().addToCapacity("nvidia.com/gpu", new Quantity("4"))
                .addToAllocatable("nvidia.com/gpu", new Quantity("4")).endStatus();
    }

    static List<Fact> factsOf(Node node) {
        List<Observation> obs = new java.util.ArrayList<>();
        FixedClusters.over(List.of(node), List.of()).observeNode(node, null, java.util.Set::of, List::of, obs);
        return obs.stream().map(Observation::fact).toList();
    }

    @Test
    void aNodeWhoseDeletionWasAskedForIsReadAsBeingDeletedWithTheFinalizersThatDrainItFirst() {
        Node leaving = gpuNode("l40s-batch-1").editMetadata().withDeletionTimestamp("2026-12-03T20:09:31Z")
                .withFinalizers("karpenter.sh/termination").endMetadata().build();

        List<Facts.NodeDeletion> read = factsOf(leaving).stream().filter(Facts.NodeDeletion.class::isInstance)
                .map(Facts.NodeDeletion.class::cast).toList();

        assertEquals(List.of(new Facts.NodeDeletion("l40s-batch-1", Instant.parse("2026-12-03T20:09:31Z"),
                List.of("karpenter.sh/termination"))), read);
        assertEquals(Trust.PLATFORM, Trust.of(read.get(0)), "only a cluster-scoped actor deletes a Node");
    }

    @Test
    void aNodeNobodyDeletesSaysNothingOfIt() {
        assertTrue(factsOf(gpuNode("l40s-batch-2").build()).stream().noneMatch(Facts.NodeDeletion.class::isInstance));
    }
}
