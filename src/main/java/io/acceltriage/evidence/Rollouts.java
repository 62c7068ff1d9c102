package io.acceltriage.evidence;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recent rollouts of node-agent DaemonSets (driver, device plugin, exporter), read from their
 * ControllerRevisions: the same fault on many nodes right after such a rollout is the rollout's.
 */
public final class Rollouts {

    /** A node-agent revision this much older than the storm is not "right after a rollout". */
    public static final Duration RECENT_ROLLOUT = Duration.ofHours(6);
    private static final Duration CLOCK_SLACK = Duration.ofMinutes(5);

    private final KubernetesClient client;
    private final NodeAgents nodeAgents;

    public Rollouts(KubernetesClient client, NodeAgents nodeAgents) {
        this.client = client;
        this.nodeAgents = nodeAgents;
    }

    /** Node-agent DaemonSets whose newest revision appeared shortly before the storm, as evidence. */
    public List<Evidence> recentNodeAgentRollouts(Instant at, int numbered) {
        List<Evidence> out = new ArrayList<>();
        for (Observation o : recent(at)) {
            out.add(new Evidence("E" + (numbered + out.size() + 1), o.source(), o.summary(), o.fact(), o.trust()));
        }
        return out;
    }

    /**
     * The recent rollouts of the DaemonSets whose pods these are ({@code namespace/pod}, failing node agents): a
     * DaemonSet's pods are named after it (its name, a dash, a suffix), so the pod names its DaemonSet.
     */
    List<Observation> behind(java.util.Collection<String> agentPods, Instant at) {
        if (agentPods.isEmpty() || at == null) return List.of();
        return recent(at).stream().filter(o -> o.fact() instanceof Facts.ClusterEvent ev && agentPods.stream()
                .anyMatch(p -> p.startsWith(ev.namespace() + "/" + ev.objectName() + "-"))).toList();
    }

    private List<Observation> recent(Instant at) {
        List<ControllerRevision> revisions;
        try {
            revisions = client.apps().controllerRevisions().inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            return List.of(); // not visible to us: the members' evidence stands alone
        }
        // A tenant's DaemonSet named like an agent is not one (AgentPods): its rollout is not the platform's.
        AgentPods platform = new AgentPods(nodeAgents, ns -> client.pods().inNamespace(ns).list().getItems());
        Map<String, List<ControllerRevision>> byDaemonSet = new LinkedHashMap<>();
        for (ControllerRevision r : revisions) {
            OwnerReference owner = r.getMetadata().getOwnerReferences() == null ? null
                    : r.getMetadata().getOwnerReferences().stream().filter(o -> "DaemonSet".equals(o.getKind())).findFirst().orElse(null);
            if (owner == null || !nodeAgents.roleOf(owner.getName(), "DaemonSet", owner.getName()).nodeAgent()
                    || platform.runsTenantWork(r.getMetadata().getNamespace())) continue;
            byDaemonSet.computeIfAbsent(r.getMetadata().getNamespace() + "/" + owner.getName(), k -> new ArrayList<>()).add(r);
        }
        List<Observation> out = new ArrayList<>();
        byDaemonSet.forEach((ds, revs) -> {
            ControllerRevision newest = revs.stream().max(Comparator.comparingLong(r -> r.getRevision() == null ? 0 : r.getRevision()))
                    .orElseThrow();
            Instant created = parse(newest.getMetadata().getCreationTimestamp());
            // An update, not the first install: an earlier revision exists. A revision stamped a little
            // after the alerts still counts: clocks differ, and alert times are rounded.
            if (created == null || revs.size() < 2 || created.isAfter(at.plus(CLOCK_SLACK))
                    || created.isBefore(at.minus(RECENT_ROLLOUT))) {
                return;
            }
            String image = imageOf(newest.getData());
            String[] nsName = ds.split("/", 2);
            String summary = "DaemonSet " + ds + " revision " + newest.getRevision() + " created " + created
                    + (image == null ? "" : " (" + image + ")");
            // Recorded as the DaemonSet's own event: the fact type the classifier and pages already read.
            // Read from the API server's ControllerRevisions, which only the DaemonSet controller writes: the platform's word.
            out.add(new Observation(Source.CLUSTER, summary, new Facts.ClusterEvent(nsName[0],
                    "DaemonSet", nsName[1], "Normal", "NewRevision", summary, 1, created), Trust.PLATFORM, null));
        });
        return out;
    }

    /**
     * The first container's image in a DaemonSet revision's data (a patch of the pod template). fabric8
     * 7.5 hands the data over as a {@code RawExtension} (an {@code AnyType}) wrapping the map, not the map.
     */
    @SuppressWarnings("unchecked")
    public static String imageOf(Object data) {
        if (data instanceof io.fabric8.kubernetes.api.model.AnyType any) data = any.getValue();
        try {
            Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) data).get("spec");
            Map<String, Object> template = (Map<String, Object>) spec.get("template");
            Map<String, Object> podSpec = (Map<String, Object>) template.get("spec");
            List<Map<String, Object>> containers = (List<Map<String, Object>>) podSpec.get("containers");
            return String.valueOf(containers.get(0).get("image"));
        } catch (RuntimeException e) {
            return null; // a revision of another shape: the revision number says enough
        }
    }

    private static Instant parse(String t) {
        try {
            return t == null ? null : OffsetDateTime.parse(t).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

}
