package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Just enough of the DaemonSet controller for a node-agent rollout started by hand
 * ({@code POST /api/v1/sandbox/rollouts}): the DaemonSet's template moves to the new image with a
 * ControllerRevision of its own; while its update strategy is RollingUpdate one node's pod is replaced by a
 * Ready pod of the new revision every second (maxUnavailable 1); under OnDelete only a pod someone deleted
 * comes back, at the newest revision. A revision started as broken makes the DCGM diagnostic's software test
 * fail on the nodes that run it, in DCGM's words, as a node agent that breaks the driver stack would.
 * Other DaemonSets (the device-plugin-rollout fault's) are left alone.
 */
final class AgentRollouts implements AutoCloseable {

    /** What DCGM's software test says when NVML cannot be used (DCGM_FR_NVML_API). */
    static final String BROKEN = "Error calling NVML API nvmlInit: Driver/library version mismatch";

    /** A rollout this controller drives: its DaemonSet, the revision it rolls out, the nodes the DaemonSet runs on. */
    record Rollout(String daemonSet, String hash, long number, String image, boolean broken, Map<String, Pod> podsByNode) {}

    private final KubernetesClient client;
    private final FleetSeed seed;
    private final Map<String, Rollout> rolling = new ConcurrentHashMap<>();
    private final Set<String> broken = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sandbox-daemonset-controller");
        t.setDaemon(true);
        return t;
    });

    AgentRollouts(KubernetesClient client, FleetSeed seed) {
        this.client = client;
        this.seed = seed;
        ticker.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    /** Starts rolling {@code image} out to the GPU operator's DaemonSet {@code daemonSet}; refuses what cannot be. */
    synchronized Rollout start(String daemonSet, String image, boolean brokenRevision) {
        if (daemonSet == null || daemonSet.isBlank() || image == null || image.isBlank()) {
            throw new IllegalArgumentException("daemonSet and image are required, e.g. {\"daemonSet\":\"" + FleetSeed.EXPORTER
                    + "\",\"image\":\"nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.4-ubuntu22.04\",\"broken\":false}");
        }
        DaemonSet ds = client.apps().daemonSets().inNamespace(FleetSeed.GPU_OPERATOR).withName(daemonSet).get();
        if (ds == null) throw new IllegalArgumentException("DaemonSet " + FleetSeed.GPU_OPERATOR + "/" + daemonSet + " does not exist");
        Container current = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
        if (image.equals(current.getImage())) throw new IllegalArgumentException(daemonSet + " runs " + image + " already");
        List<Pod> pods = pods(daemonSet);
        if (pods.isEmpty()) throw new IllegalArgumentException("DaemonSet " + daemonSet + " has no pods to roll");
        List<ControllerRevision> revisions = revisions(daemonSet);
        long newest = revisions.stream().mapToLong(r -> r.getRevision() == null ? 0 : r.getRevision()).max().orElse(0);
        if (newest == 0) {
            // the install's revision, which the seed did not write for every DaemonSet: the hash its pods carry
            String installed = pods.get(0).getMetadata().getLabels().get("controller-revision-hash");
            seed.revision(daemonSet, current.getName(), current.getImage(), 1, installed, FleetSeed.STARTED);
            newest = 1;
        }
        String hash = FleetSeed.suffix(daemonSet + image, 10);
        long number = newest + 1;
        seed.revision(daemonSet, current.getName(), image, number, hash, Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        client.apps().daemonSets().inNamespace(FleetSeed.GPU_OPERATOR).withName(daemonSet).edit(d -> new DaemonSetBuilder(d)
                .editSpec().editTemplate().editSpec().editFirstContainer().withImage(image).endContainer().endSpec().endTemplate().endSpec()
                .build());
        Map<String, Pod> byNode = new TreeMap<>();
        for (Pod p : pods) byNode.put(p.getSpec().getNodeName(), p);
        if (brokenRevision) broken.add(hash);
        Rollout r = new Rollout(daemonSet, hash, number, image, brokenRevision, Map.copyOf(byNode));
        rolling.put(daemonSet, r);
        return r;
    }

    /** DCGM's words when {@code node} runs a broken revision of a node agent; empty when it does not. */
    Optional<String> brokenOn(String node) {
        if (broken.isEmpty()) return Optional.empty();
        return client.pods().inNamespace(FleetSeed.GPU_OPERATOR).withField("spec.nodeName", node).list().getItems().stream()
                .anyMatch(p -> p.getMetadata().getLabels() != null && broken.contains(p.getMetadata().getLabels().get("controller-revision-hash")))
                ? Optional.of(BROKEN) : Optional.empty();
    }

    synchronized void reset() {
        rolling.clear();
        broken.clear();
    }

    private synchronized void tick() {
        for (Rollout r : List.copyOf(rolling.values())) {
            try {
                step(r);
            } catch (RuntimeException e) {
                // the server closing or a test resetting the sandbox: the next tick looks again
            }
        }
    }

    private void step(Rollout r) {
        DaemonSet ds = client.apps().daemonSets().inNamespace(FleetSeed.GPU_OPERATOR).withName(r.daemonSet()).get();
        if (ds == null) {
            rolling.remove(r.daemonSet());
            return;
        }
        Map<String, Pod> onNode = new HashMap<>();
        for (Pod p : pods(r.daemonSet())) onNode.put(p.getSpec().getNodeName(), p);
        for (Map.Entry<String, Pod> e : r.podsByNode().entrySet()) {
            if (!onNode.containsKey(e.getKey())) onNode.put(e.getKey(), create(r, e.getValue()));
        }
        String strategy = ds.getSpec().getUpdateStrategy() == null ? "RollingUpdate" : ds.getSpec().getUpdateStrategy().getType();
        List<Pod> old = onNode.values().stream().filter(p -> !r.hash().equals(hashOf(p)))
                .sorted(Comparator.comparing(p -> p.getSpec().getNodeName())).toList();
        if (old.isEmpty()) {
            rolling.remove(r.daemonSet());
            return;
        }
        if (!"RollingUpdate".equals(strategy)) return; // OnDelete: the controller waits for someone to delete a pod
        Pod next = old.get(0);
        client.pods().inNamespace(FleetSeed.GPU_OPERATOR).withName(next.getMetadata().getName()).delete();
        create(r, r.podsByNode().get(next.getSpec().getNodeName()));
    }

    /** The DaemonSet's pod for {@code like}'s node at the rollout's revision, Running and Ready. */
    private Pod create(Rollout r, Pod like) {
        String node = like.getSpec().getNodeName();
        Container c = new ContainerBuilder(like.getSpec().getContainers().get(0)).withImage(r.image()).build();
        Map<String, String> labels = new HashMap<>(like.getMetadata().getLabels());
        labels.put("controller-revision-hash", r.hash());
        labels.put("pod-template-generation", String.valueOf(r.number()));
        String name = r.daemonSet() + "-" + FleetSeed.suffix(r.daemonSet() + node + r.hash(), 5);
        Pod pod = FleetSeed.runningPod(FleetSeed.GPU_OPERATOR, name, node, labels, like.getMetadata().getOwnerReferences().get(0), c,
                new io.fabric8.kubernetes.api.model.PodSpecBuilder(like.getSpec()).withContainers(c).build(), List.of());
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        pod.getMetadata().setUid(java.util.UUID.randomUUID().toString());
        pod.getMetadata().setCreationTimestamp(now);
        return client.pods().inNamespace(FleetSeed.GPU_OPERATOR).resource(pod).create();
    }

    private List<Pod> pods(String daemonSet) {
        return client.pods().inNamespace(FleetSeed.GPU_OPERATOR).withLabel("app", daemonSet).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private List<ControllerRevision> revisions(String daemonSet) {
        List<ControllerRevision> out = new ArrayList<>();
        for (ControllerRevision r : client.apps().controllerRevisions().inNamespace(FleetSeed.GPU_OPERATOR).list().getItems()) {
            if (r.getMetadata().getOwnerReferences() != null
                    && r.getMetadata().getOwnerReferences().stream().anyMatch(o -> daemonSet.equals(o.getName()))) {
                out.add(r);
            }
        }
        return out;
    }

    private static String hashOf(Pod p) {
        return p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get("controller-revision-hash");
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
