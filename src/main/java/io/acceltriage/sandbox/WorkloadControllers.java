package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Just enough of the ReplicaSet, Job and StatefulSet controllers and the scheduler: when a pod they own
 * is deleted or evicted, a replacement appears, Running and Ready, on a schedulable node with free
 * accelerators (not cordoned, Ready, no taint it does not tolerate), holding free healthy devices.
 * It runs inside the API server's request handling, so it works on the object store, not the client.
 */
final class WorkloadControllers {

    private static final Kinds.Kind NODE = Kinds.of("v1", "Node");
    private static final Set<String> ACCELERATORS = Set.of("nvidia.com/gpu", "google.com/tpu");

    private final ObjectStore store;
    private final DeviceState devices;
    private final DisruptionBudgets budgets;

    WorkloadControllers(ObjectStore store, DeviceState devices, DisruptionBudgets budgets) {
        this.store = store;
        this.devices = devices;
        this.budgets = budgets;
    }

    void podDeleted(ObjectNode deleted) {
        Pod old = Kinds.SERIALIZATION.unmarshal(deleted.toString(), Pod.class);
        Optional<OwnerReference> owner = old.getMetadata().getOwnerReferences().stream()
                .filter(o -> Boolean.TRUE.equals(o.getController()))
                .filter(o -> Set.of("ReplicaSet", "Job", "StatefulSet").contains(o.getKind()))
                .findFirst();
        if (owner.isEmpty() || old.getSpec().getContainers().isEmpty()) {
            return;
        }
        String ns = old.getMetadata().getNamespace();
        String name = replacementName(old, owner.get());
        var container = old.getSpec().getContainers().get(0);
        String resource = container.getResources() == null || container.getResources().getLimits() == null ? null
                : container.getResources().getLimits().keySet().stream().filter(ACCELERATORS::contains).findFirst()
                        .orElse(null);
        int wanted = resource == null ? 0
                : container.getResources().getLimits().get(resource).getNumericalAmount().intValue();
        Optional<String> node = schedule(old, resource, wanted);
        if (node.isEmpty()) {
            return;
        }
        List<String> ids = freeDevices(node.get(), wanted);
        ids.forEach(id -> devices.devices(node.get()).stream().filter(d -> d.id().equals(id))
                .forEach(d -> devices.markBusy(node.get(), d.index())));
        PodSpec template = new PodSpecBuilder(old.getSpec()).withNodeName(null)
                .withTolerations(old.getSpec().getTolerations().stream()
                        .filter(t -> !"NoExecute".equals(t.getEffect())).toList())
                .build();
        Pod replacement = FleetSeed.runningPod(ns, name, node.get(), old.getMetadata().getLabels(), owner.get(),
                container, template, ids);
        replacement.getMetadata().setUid(UUID.randomUUID().toString());
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        replacement.getMetadata().setCreationTimestamp(now);
        replacement.getStatus().setStartTime(now);
        replacement.getStatus().getContainerStatuses().forEach(s -> s.getState().getRunning().setStartedAt(now));
        replacement.getStatus().getConditions().forEach(c -> c.setLastTransitionTime(now));
        store.create(ObjectStore.parse(Kinds.SERIALIZATION.asJson(replacement)));
        budgets.refresh(ns);
    }

    private static String replacementName(Pod old, OwnerReference owner) {
        String random = FleetSeed.suffix(UUID.randomUUID().toString(), 5);
        return switch (owner.getKind()) {
            // a StatefulSet pod comes back under its own name
            case "StatefulSet" -> old.getMetadata().getName();
            case "Job" -> {
                String index = old.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index");
                yield owner.getName() + "-" + (index == null ? "" : index + "-") + random;
            }
            default -> owner.getName() + "-" + random;
        };
    }

    /**
     * The first node, by name, that the pod fits on, preferring another node than the one it left — except
     * for a member of an indexed Job (a JobSet's or an indexed Job's gang member), which goes back to the
     * node it left when that node still takes it: it holds the member's image and the GPUs it just freed,
     * which kube-scheduler's ImageLocality and NodeResourcesFit score first (a restarted gang in place).
     */
    private Optional<String> schedule(Pod old, String resource, int wanted) {
        Map<String, String> selector = Optional.ofNullable(old.getSpec().getNodeSelector()).orElse(Map.of());
        List<ObjectNode> candidates = new ArrayList<>();
        for (ObjectNode node : store.list(NODE, null)) {
            JsonNode labels = node.path("metadata").path("labels");
            boolean matches = selector.entrySet().stream()
                    .allMatch(e -> e.getValue().equals(labels.path(e.getKey()).asText(null)));
            if (matches && schedulable(node, old) && free(node, resource) >= wanted) {
                candidates.add(node);
            }
        }
        String previous = old.getSpec().getNodeName();
        boolean member = old.getMetadata().getLabels() != null
                && old.getMetadata().getLabels().containsKey("batch.kubernetes.io/job-completion-index");
        return candidates.stream()
                .sorted(Comparator.comparing((ObjectNode n) -> n.path("metadata").path("name").asText().equals(previous) != member)
                        .thenComparing(n -> n.path("metadata").path("name").asText()))
                .map(n -> n.path("metadata").path("name").asText())
                .findFirst();
    }

    private static boolean schedulable(JsonNode node, Pod pod) {
        if (node.path("spec").path("unschedulable").asBoolean(false)) {
            return false;
        }
        boolean ready = false;
        for (JsonNode c : node.path("status").path("conditions")) {
            ready |= c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True");
        }
        for (JsonNode taint : node.path("spec").path("taints")) {
            String effect = taint.path("effect").asText();
            if (effect.equals("NoSchedule") || effect.equals("NoExecute")) {
                boolean tolerated = pod.getSpec().getTolerations().stream().anyMatch(t ->
                        (t.getKey() == null || t.getKey().equals(taint.path("key").asText()))
                                && (t.getEffect() == null || t.getEffect().equals(effect)));
                if (!tolerated) {
                    return false;
                }
            }
        }
        return ready;
    }

    /** Allocatable accelerators not requested by the pods already bound to the node. */
    private int free(JsonNode node, String resource) {
        if (resource == null) {
            return Integer.MAX_VALUE;
        }
        int allocatable = node.path("status").path("allocatable").path(resource).asInt(0);
        String name = node.path("metadata").path("name").asText();
        int used = 0;
        for (ObjectNode pod : podsOn(name)) {
            for (JsonNode c : pod.path("spec").path("containers")) {
                used += c.path("resources").path("limits").path(resource).asInt(0);
            }
        }
        return allocatable - used;
    }

    private List<String> freeDevices(String node, int wanted) {
        if (wanted == 0 || !devices.hasDevices(node)) {
            return List.of();
        }
        Set<String> held = new HashSet<>();
        for (ObjectNode pod : podsOn(node)) {
            for (JsonNode status : pod.path("status").path("containerStatuses")) {
                for (JsonNode allocated : status.path("allocatedResourcesStatus")) {
                    allocated.path("resources").forEach(r -> held.add(r.path("resourceID").asText()));
                }
            }
        }
        return devices.devices(node).stream().map(DeviceState.Device::id)
                .filter(id -> !held.contains(id) && !devices.isUnhealthy(id))
                .limit(wanted).toList();
    }

    private List<ObjectNode> podsOn(String node) {
        return store.list(DisruptionBudgets.POD, null).stream()
                .filter(p -> node.equals(p.path("spec").path("nodeName").asText()))
                .filter(p -> !Set.of("Succeeded", "Failed").contains(p.path("status").path("phase").asText()))
                .toList();
    }
}
