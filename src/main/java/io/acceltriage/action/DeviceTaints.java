package io.acceltriage.action;

import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the node's GPUs are DRA devices (the DRA driver publishes ResourceSlices for the node), one GPU
 * is marked with a DeviceTaintRule (KEP-5055, {@code resource.k8s.io}, served as v1alpha3 from Kubernetes
 * 1.33 behind {@code DRADeviceTaints}, v1 later: {@code repair.dra.apiVersion}) that selects just that
 * device by driver, pool and name, effect {@code NoSchedule}: no new claim gets it while it resets. The
 * device is the slice's whose {@code index} attribute (NVIDIA's DRA driver publishes one) is the GPU's
 * index, else the one named {@code gpu-N}. The rule is removed when the GPU comes back.
 */
final class DeviceTaints {

    static final String TAINT = "acceltriage.io/gpu-reset";

    private final KubernetesClient client;

    DeviceTaints(KubernetesClient client) {
        this.client = client;
    }

    /** The rule's name for this GPU. */
    static String ruleName(String node, int gpu) {
        String name = "acceltriage-" + node + "-gpu" + gpu;
        return name.length() > 253 ? name.substring(0, 253) : name;
    }

    /** Marks the GPU's device; returns what was marked, empty when the node's GPUs are not DRA devices. */
    Optional<String> mark(Policy.Dra dra, String node, int gpu) {
        Optional<Device> device = device(dra.driver(), node, gpu);
        if (device.isEmpty()) return Optional.empty();
        var rules = client.genericKubernetesResources(rules(dra));
        String name = ruleName(node, gpu);
        if (rules.withName(name).get() == null) {
            GenericKubernetesResource rule = new GenericKubernetesResourceBuilder().withApiVersion(dra.apiVersion()).withKind("DeviceTaintRule")
                    .withNewMetadata().withName(name).addToLabels("app.kubernetes.io/managed-by", "acceltriage").endMetadata().build();
            rule.setAdditionalProperty("spec", Map.of(
                    "deviceSelector", Map.of("driver", dra.driver(), "pool", device.get().pool(), "device", device.get().name()),
                    "taint", Map.of("key", TAINT, "value", String.valueOf(gpu), "effect", "NoSchedule")));
            rules.resource(rule).create();
        }
        return Optional.of("DeviceTaintRule " + name + " (" + dra.driver() + " " + device.get().pool() + "/" + device.get().name() + ")");
    }

    /** Removes the GPU's rule, if there is one. */
    boolean unmark(Policy.Dra dra, String node, int gpu) {
        var rule = client.genericKubernetesResources(rules(dra)).withName(ruleName(node, gpu));
        if (rule.get() == null) return false;
        rule.delete();
        return true;
    }

    record Device(String pool, String name) {}

    /** The GPU's device in the DRA driver's ResourceSlices of the node. */
    Optional<Device> device(String driver, String node, int gpu) {
        List<GenericKubernetesResource> slices;
        try {
            slices = client.genericKubernetesResources("resource.k8s.io/v1beta1", "ResourceSlice").list().getItems();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return Optional.empty(); // no DRA on this cluster
        }
        for (GenericKubernetesResource s : slices) {
            if (!(s.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)) continue;
            if (!driver.equals(spec.get("driver")) || !node.equals(spec.get("nodeName"))) continue;
            String pool = spec.get("pool") instanceof Map<?, ?> p ? String.valueOf(p.get("name")) : node;
            if (!(spec.get("devices") instanceof List<?> devices)) continue;
            Optional<Device> byIndex = devices.stream().filter(d -> d instanceof Map<?, ?> m && index(m) == gpu)
                    .map(d -> new Device(pool, String.valueOf(((Map<?, ?>) d).get("name")))).findFirst();
            Optional<Device> byName = devices.stream().filter(d -> d instanceof Map<?, ?> m && ("gpu-" + gpu).equals(m.get("name")))
                    .map(d -> new Device(pool, "gpu-" + gpu)).findFirst();
            if (byIndex.or(() -> byName).isPresent()) return byIndex.or(() -> byName);
        }
        return Optional.empty();
    }

    /** The {@code index} attribute, in v1beta1's {@code basic.attributes} or later versions' {@code attributes}; -1 when absent. */
    private static int index(Map<?, ?> device) {
        Object attributes = device.get("basic") instanceof Map<?, ?> b ? b.get("attributes") : device.get("attributes");
        if (attributes instanceof Map<?, ?> a && a.get("index") instanceof Map<?, ?> i && i.get("int") instanceof Number n) return n.intValue();
        return -1;
    }

    private static ResourceDefinitionContext rules(Policy.Dra dra) {
        return new ResourceDefinitionContext.Builder().withGroup("resource.k8s.io")
                .withVersion(dra.apiVersion().substring(dra.apiVersion().indexOf('/') + 1)).withKind("DeviceTaintRule")
                .withPlural("devicetaintrules").withNamespaced(false).build();
    }
}
