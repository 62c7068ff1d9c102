package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which nodes serve their GPUs through DRA ResourceSlices (so advertising no nvidia.com/gpu is how they are built). */
class DraNodesTest {

    static GenericKubernetesResource slice(String node, List<Object> devices) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setAdditionalProperty("spec", Map.of("driver", "gpu.nvidia.com", "nodeName", node, "devices", devices));
        return r;
    }

    @Test
    void aNodeWhoseSliceListsDevicesIsADraNodeAndOneWithAnEmptySliceIsNot() {
        List<GenericKubernetesResource> slices = List.of(slice("h200-dra-04", List.of(Map.of("name", "gpu-0"))),
                slice("h200-dra-05", List.of()));

        assertEquals(Set.of("h200-dra-04"), ClusterCollector.draNodes(slices));
    }

    @Test
    void noSlicesNoDraNodes() {
        assertEquals(Set.of(), ClusterCollector.draNodes(List.of()));
    }
}
