package io.acceltriage.action;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.evidence.PodRole;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Node-agent rollouts validated by canary ({@code rollouts.canary} in the policy). When a watched DaemonSet (a
 * driver, device plugin or exporter as {@code knowledge/node-agents.yaml} knows them) gets a new revision, the
 * rest of its rollout is held the way {@link PauseRollout} holds one (update strategy {@code OnDelete}, the old
 * strategy kept in {@value PauseRollout#PAUSED_FROM}); the first {@code nodes} nodes run the new revision (those
 * the rolling update already reached, else acceltriage deletes their old pod, which OnDelete replaces with the new
 * revision); each runs the DCGM diagnostic of {@link ValidateNode} at {@code level}. All pass: the old strategy
 * comes back and the rollout goes on. One fails, or a new pod does not turn Ready within {@code timeout}: the
 * rollout stays held, the failure is audited and told in the diagnostic's own words, and the revision is marked so
 * it is not tried again; rolling back (a newer revision) starts a new canary.
 *
 * <p>State lives on the DaemonSet's annotations, so another replica or a restart resumes a canary where it was.
 */
final class CanaryRollouts {

    private static final Logger LOG = Logger.getLogger(CanaryRollouts.class);

    /** The revision (its controller-revision-hash) held while its canaries are validated. */
    static final String REVISION = "acceltriage.io/canary-revision";
    static final String NODES = "acceltriage.io/canary-nodes";
    /** The last revision let through: the watch does not hold it again. */
    static final String PASSED = "acceltriage.io/canary-passed";
    /** A revision whose canary failed: held, and not tried again. */
    static final String FAILED = "acceltriage.io/canary-failed";
    static final String MESSAGE = "acceltriage.io/canary-message";
    static final String HASH = "controller-revision-hash";

    private final KubernetesClient client;
    private final NodeAgents agents;
    private final AuditLog audit;
    private final Supplier<Policy> policy;
    private final Timing timing;

    CanaryRollouts(KubernetesClient client, NodeAgents agents, AuditLog audit, Supplier<Policy> policy, Timing timing) {
        this.client = client;
        this.agents = agents;
        this.audit = audit;
        this.policy = policy;
        this.timing = timing;
    }

    /** One look at every watched DaemonSet: the canaries that ended now, released or held. */
    List<RolloutCanary> step() {
        Policy p = policy.get();
        if (p == null || p.canaryAgents().isEmpty()) return List.of();
        List<RolloutCanary> ended = new ArrayList<>();
        for (DaemonSet ds : client.apps().daemonSets().inAnyNamespace().list().getItems()) {
            if (!watched(ds, p)) continue;
            try {
                canary(ds, p).ifPresent(ended::add);
            } catch (KubernetesClientException e) {
                LOG.warnf("rollout canary of DaemonSet %s: %s; looked at again next time", ref(ds), e.getMessage());
            }
        }
        return ended;
    }

    /** The DaemonSet's node-agent role, as the policy names roles: driver, device-plugin, exporter. */
    boolean watched(DaemonSet ds, Policy p) {
        String name = ds.getMetadata().getName();
        PodRole role = agents.roleOf(name, "DaemonSet", name);
        return role.nodeAgent() && p.canaryAgents().contains(role.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }

    private Optional<RolloutCanary> canary(DaemonSet ds, Policy p) {
        List<ControllerRevision> revisions = revisions(ds);
        if (revisions.isEmpty()) return Optional.empty();
        ControllerRevision newest = revisions.stream().max(Comparator.comparingLong(r -> r.getRevision() == null ? 0 : r.getRevision()))
                .orElseThrow();
        String hash = hashOf(ds, newest);
        Map<String, String> notes = annotations(ds);
        if (hash.equals(notes.get(PASSED)) || hash.equals(notes.get(FAILED))) return Optional.empty();
        List<Pod> pods = pods(ds);
        String image = imageOf(newest);
        if (!hash.equals(notes.get(REVISION))) {
            // The install, or a rollout that ended before this watch saw it: nothing is left to hold.
            if (revisions.size() < 2 || pods.stream().allMatch(pod -> hash.equals(label(pod, HASH)))) {
                annotate(ds, Map.of(PASSED, hash), List.of());
                return Optional.empty();
            }
            hold(ds, hash);
            audit.append(null, AuditKind.ROLLOUT_HELD, Actors.AGENT, payload(ds, hash, image, "held for its canary nodes: "
                    + p.canaryNodes() + " on the new revision, dcgmi diag -r " + p.canaryLevel()));
        }
        List<String> canaries = canaryNodes(ds, hash, pods, p.canaryNodes(), notes);
        annotate(ds, Map.of(NODES, String.join(",", canaries)), List.of());
        Duration timeout = p.canaryTimeout();
        List<String> failures = new ArrayList<>();
        for (String node : canaries) {
            if (!timing.until(timeout, () -> readyAt(ds, node, hash))) {
                failures.add(node + ": the new revision's pod did not turn Ready within " + timeout.toMinutes() + " min");
            }
        }
        for (String node : canaries) {
            if (failures.stream().anyMatch(f -> f.startsWith(node + ":"))) continue;
            Node n = client.nodes().withName(node).get();
            if (n == null) {
                failures.add(node + ": the node is gone");
                continue;
            }
            ValidateNode.Diagnosis d = ValidateNode.diagnose(client, p, timing, n, p.canaryLevel(), timeout, false);
            Map<String, Object> said = payload(ds, hash, image, d.words());
            said.put("node", node);
            said.put("passed", d.passed());
            audit.append(null, AuditKind.ROLLOUT_CANARY, Actors.AGENT, said);
            if (!d.passed()) failures.add(node + ": " + d.words());
        }
        String ref = ref(ds);
        if (failures.isEmpty()) {
            release(ds, hash);
            audit.append(null, AuditKind.ROLLOUT_RELEASED, Actors.AGENT, payload(ds, hash, image, "every canary passed ("
                    + String.join(", ", canaries) + "): the rollout goes on"));
            return Optional.of(new RolloutCanary(ref, hash, image, true, canaries, List.of()));
        }
        String message = String.join("; ", failures);
        annotate(ds, Map.of(FAILED, hash, MESSAGE, message.length() > 2000 ? message.substring(0, 2000) : message), List.of(REVISION));
        return Optional.of(new RolloutCanary(ref, hash, image, false, canaries, List.copyOf(failures)));
    }

    /**
     * The nodes already on the new revision first (the rolling update reached them before the hold), in name order;
     * then, up to {@code wanted}, schedulable Ready nodes whose old pod acceltriage deletes so OnDelete gives them the
     * new one. A resumed canary keeps the nodes it chose.
     */
    private List<String> canaryNodes(DaemonSet ds, String hash, List<Pod> pods, int wanted, Map<String, String> notes) {
        String chosen = notes.get(NODES);
        if (hash.equals(notes.get(REVISION)) && chosen != null && !chosen.isBlank()) return Arrays.asList(chosen.split(","));
        List<String> nodes = new ArrayList<>(pods.stream().filter(pod -> hash.equals(label(pod, HASH))).map(pod -> pod.getSpec().getNodeName())
                .sorted().toList());
        List<Pod> old = pods.stream().filter(pod -> !hash.equals(label(pod, HASH)))
                .sorted(Comparator.comparing((Pod pod) -> pod.getSpec().getNodeName())).toList();
        for (Pod pod : old) {
            if (nodes.size() >= wanted) break;
            Node n = client.nodes().withName(pod.getSpec().getNodeName()).get();
            if (n == null || Pods.fenced(n) || !ready(n)) continue;
            client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).delete();
            nodes.add(pod.getSpec().getNodeName());
        }
        return nodes;
    }

    private boolean readyAt(DaemonSet ds, String node, String hash) {
        return pods(ds).stream().filter(pod -> node.equals(pod.getSpec().getNodeName()) && hash.equals(label(pod, HASH)))
                .anyMatch(CanaryRollouts::podReady);
    }

    /** OnDelete, the old strategy kept as {@link PauseRollout} keeps it (unless someone had set OnDelete already). */
    private void hold(DaemonSet ds, String hash) {
        DaemonSetUpdateStrategy s = ds.getSpec().getUpdateStrategy();
        boolean rolling = s == null || s.getType() == null || !PauseRollout.ON_DELETE.equals(s.getType());
        String old = Serialization.asJson(s == null || s.getType() == null ? new DaemonSetUpdateStrategyBuilder().withType("RollingUpdate").build() : s);
        resource(ds).edit(d -> {
            DaemonSetBuilder b = new DaemonSetBuilder(d).editMetadata().addToAnnotations(REVISION, hash).removeFromAnnotations(NODES)
                    .endMetadata();
            if (rolling) {
                b.editMetadata().addToAnnotations(PauseRollout.PAUSED_FROM, old).endMetadata()
                        .editSpec().withUpdateStrategy(new DaemonSetUpdateStrategyBuilder().withType(PauseRollout.ON_DELETE).build()).endSpec();
            }
            return b.build();
        });
    }

    private void release(DaemonSet ds, String hash) {
        resource(ds).edit(d -> {
            String old = annotations(d).get(PauseRollout.PAUSED_FROM);
            DaemonSetBuilder b = new DaemonSetBuilder(d).editMetadata().addToAnnotations(PASSED, hash).removeFromAnnotations(REVISION)
                    .removeFromAnnotations(NODES).removeFromAnnotations(PauseRollout.PAUSED_FROM).endMetadata();
            if (old != null) b.editSpec().withUpdateStrategy(Serialization.unmarshal(old, DaemonSetUpdateStrategy.class)).endSpec();
            return b.build();
        });
    }

    private void annotate(DaemonSet ds, Map<String, String> add, List<String> remove) {
        resource(ds).edit(d -> {
            var m = new DaemonSetBuilder(d).editMetadata().addToAnnotations(add);
            for (String key : remove) m.removeFromAnnotations(key);
            return m.endMetadata().build();
        });
    }

    private io.fabric8.kubernetes.client.dsl.Resource<DaemonSet> resource(DaemonSet ds) {
        return client.apps().daemonSets().inNamespace(ds.getMetadata().getNamespace()).withName(ds.getMetadata().getName());
    }

    private List<ControllerRevision> revisions(DaemonSet ds) {
        String name = ds.getMetadata().getName();
        return client.apps().controllerRevisions().inNamespace(ds.getMetadata().getNamespace()).list().getItems().stream()
                .filter(r -> r.getMetadata().getOwnerReferences() != null && r.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> "DaemonSet".equals(o.getKind()) && name.equals(o.getName())))
                .toList();
    }

    /** The DaemonSet's pods: those its selector picks and it controls. */
    private List<Pod> pods(DaemonSet ds) {
        Map<String, String> selector = ds.getSpec().getSelector() == null ? null : ds.getSpec().getSelector().getMatchLabels();
        var inNamespace = client.pods().inNamespace(ds.getMetadata().getNamespace());
        List<Pod> all = selector == null || selector.isEmpty() ? inNamespace.list().getItems() : inNamespace.withLabels(selector).list().getItems();
        String name = ds.getMetadata().getName();
        return all.stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null && pod.getSpec().getNodeName() != null)
                .filter(pod -> pod.getMetadata().getOwnerReferences() != null && pod.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> "DaemonSet".equals(o.getKind()) && name.equals(o.getName())))
                .toList();
    }

    /** The revision's hash as the controller labels pods with it; else the name's suffix after the DaemonSet's name. */
    private static String hashOf(DaemonSet ds, ControllerRevision r) {
        String label = r.getMetadata().getLabels() == null ? null : r.getMetadata().getLabels().get(HASH);
        if (label != null) return label;
        String name = r.getMetadata().getName();
        String prefix = ds.getMetadata().getName() + "-";
        return name.startsWith(prefix) ? name.substring(prefix.length()) : name;
    }

    private static String imageOf(ControllerRevision r) {
        String image = io.acceltriage.evidence.Rollouts.imageOf(r.getData());
        return image == null ? "" : image;
    }

    private static Map<String, Object> payload(DaemonSet ds, String hash, String image, String detail) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("daemonSet", ref(ds));
        p.put("revision", hash);
        p.put("image", image);
        p.put("detail", detail);
        return p;
    }

    private static String ref(DaemonSet ds) {
        return ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName();
    }

    private static Map<String, String> annotations(DaemonSet ds) {
        return ds.getMetadata().getAnnotations() == null ? Map.of() : ds.getMetadata().getAnnotations();
    }

    private static String label(Pod pod, String key) {
        return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
    }

    private static boolean podReady(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean ready(Node n) {
        return n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
