package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod the watched view keeps: what triage, correlation, policy and the actions read of a pod (name,
 * namespace, uid, version, labels, annotations, owner references, creation and deletion times; node,
 * containers' names, images, resources and ports, resource claims; phase, reason,
 * message, conditions, container statuses, pod IP), not the rest of the fabric8 Pod (volumes, env, tolerations,
 * commands, probes, security contexts, scheduler bookkeeping). Strings that many pods repeat (namespaces,
 * node names, images, label keys and values, owners, condition types, timestamps) are shared rather than held
 * once per pod.
 * A reader needing more than this reads the pod from the API server.
 */
final class TrimmedPod {

    /**
     * Every fabric8 model object carries a map of the fields its class does not know, almost always empty: the kept
     * objects share one empty, unmodifiable one instead of a map each (about 20 per pod).
     */
    private static final Map<String, Object> NO_MORE = java.util.Collections.emptyMap();

    private TrimmedPod() {
    }

    static Pod of(Pod p) {
        Pod out = new Pod();
        out.setAdditionalProperties(NO_MORE);
        out.setApiVersion(p.getApiVersion());
        out.setKind(p.getKind());
        out.setMetadata(meta(p.getMetadata()));
        if (p.getSpec() != null) out.setSpec(spec(p.getSpec()));
        if (p.getStatus() != null) out.setStatus(status(p.getStatus()));
        return out;
    }

    private static ObjectMeta meta(ObjectMeta m) {
        if (m == null) return null;
        ObjectMeta out = new ObjectMeta();
        out.setAdditionalProperties(NO_MORE);
        out.setManagedFields(null);
        out.setFinalizers(null);
        out.setName(m.getName());
        out.setNamespace(shared(m.getNamespace()));
        out.setUid(m.getUid());
        out.setResourceVersion(m.getResourceVersion());
        out.setCreationTimestamp(shared(m.getCreationTimestamp()));
        out.setDeletionTimestamp(m.getDeletionTimestamp());
        out.setDeletionGracePeriodSeconds(m.getDeletionGracePeriodSeconds());
        out.setGeneration(m.getGeneration());
        out.setLabels(sharedMap(m.getLabels()));
        if (m.getAnnotations() != null && !m.getAnnotations().isEmpty()) {
            Map<String, String> kept = new LinkedHashMap<>(m.getAnnotations());
            kept.remove(LeanStore.LAST_APPLIED);
            out.setAnnotations(kept.isEmpty() ? null : kept);
        }
        if (m.getOwnerReferences() != null && !m.getOwnerReferences().isEmpty()) {
            List<OwnerReference> refs = new ArrayList<>(m.getOwnerReferences().size());
            for (OwnerReference r : m.getOwnerReferences()) {
                OwnerReference ref = new OwnerReference(shared(r.getApiVersion()), r.getBlockOwnerDeletion(), r.getController(),
                        shared(r.getKind()), shared(r.getName()), shared(r.getUid()));
                ref.setAdditionalProperties(NO_MORE);
                refs.add(ref);
            }
            out.setOwnerReferences(refs);
        }
        return out;
    }

    private static PodSpec spec(PodSpec s) {
        PodSpec out = new PodSpec();
        out.setAdditionalProperties(NO_MORE);
        // a fabric8 model object starts with an empty collection for each field: the fields no reader asks for hold none
        out.setEphemeralContainers(null);
        out.setHostAliases(null);
        out.setImagePullSecrets(null);
        out.setNodeSelector(null);
        out.setOverhead(null);
        out.setReadinessGates(null);
        out.setSchedulingGates(null);
        out.setTolerations(null);
        out.setTopologySpreadConstraints(null);
        out.setVolumes(null);
        out.setNodeName(shared(s.getNodeName()));
        out.setContainers(containers(s.getContainers()));
        out.setInitContainers(s.getInitContainers() == null || s.getInitContainers().isEmpty() ? null : containers(s.getInitContainers()));
        out.setResourceClaims(s.getResourceClaims() == null || s.getResourceClaims().isEmpty() ? null : s.getResourceClaims());
        return out;
    }

    private static List<Container> containers(List<Container> in) {
        if (in == null) return null;
        List<Container> out = new ArrayList<>(in.size());
        for (Container c : in) {
            Container k = new Container();
            k.setAdditionalProperties(NO_MORE);
            k.setArgs(null);
            k.setCommand(null);
            k.setEnv(null);
            k.setEnvFrom(null);
            k.setPorts(null);
            k.setResizePolicy(null);
            k.setVolumeDevices(null);
            k.setVolumeMounts(null);
            k.setName(shared(c.getName()));
            k.setImage(shared(c.getImage()));
            k.setResources(c.getResources());
            // the exporter's declared metrics port: where the exporter scrape finds it on a node
            if (c.getPorts() != null && !c.getPorts().isEmpty()) k.setPorts(c.getPorts());
            out.add(k);
        }
        return out;
    }

    private static PodStatus status(PodStatus s) {
        PodStatus out = new PodStatus();
        out.setAdditionalProperties(NO_MORE);
        out.setEphemeralContainerStatuses(null);
        out.setHostIPs(null);
        out.setPodIPs(null);
        out.setResourceClaimStatuses(null);
        out.setPhase(shared(s.getPhase()));
        out.setReason(s.getReason());
        out.setMessage(s.getMessage());
        out.setPodIP(s.getPodIP());
        out.setNominatedNodeName(s.getNominatedNodeName());
        if (s.getConditions() != null) {
            List<PodCondition> kept = new ArrayList<>(s.getConditions().size());
            for (PodCondition c : s.getConditions()) {
                PodCondition k = new PodCondition();
                k.setAdditionalProperties(NO_MORE);
                k.setType(shared(c.getType()));
                k.setStatus(shared(c.getStatus()));
                k.setReason(c.getReason());
                k.setMessage(c.getMessage());
                k.setLastTransitionTime(shared(c.getLastTransitionTime()));
                kept.add(k);
            }
            out.setConditions(kept);
        }
        out.setContainerStatuses(statuses(s.getContainerStatuses()));
        out.setInitContainerStatuses(s.getInitContainerStatuses() == null || s.getInitContainerStatuses().isEmpty() ? null
                : statuses(s.getInitContainerStatuses()));
        return out;
    }

    private static List<ContainerStatus> statuses(List<ContainerStatus> in) {
        if (in == null) return null;
        List<ContainerStatus> out = new ArrayList<>(in.size());
        for (ContainerStatus c : in) {
            ContainerStatus k = new ContainerStatus();
            k.setAdditionalProperties(NO_MORE);
            k.setAllocatedResources(null);
            k.setVolumeMounts(null);
            k.setName(shared(c.getName()));
            k.setImage(shared(c.getImage()));
            k.setReady(c.getReady());
            k.setStarted(c.getStarted());
            k.setRestartCount(c.getRestartCount());
            k.setState(c.getState());
            k.setLastState(c.getLastState());
            k.setAllocatedResourcesStatus(c.getAllocatedResourcesStatus());
            out.add(k);
        }
        return out;
    }

    private static Map<String, String> sharedMap(Map<String, String> in) {
        if (in == null || in.isEmpty()) return in;
        Map<String, String> out = new LinkedHashMap<>(in.size() * 4 / 3 + 1);
        in.forEach((k, v) -> out.put(shared(k), shared(v)));
        return out;
    }

    /** One copy of a string many pods carry (the JVM's string table: collected when no pod holds it any more). */
    private static String shared(String s) {
        return s == null ? null : s.intern();
    }
}
