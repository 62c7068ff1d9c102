package io.acceltriage.action;

import io.acceltriage.cluster.Owners;
import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Restarts a whole gang (JobSet, PyTorchJob, LeaderWorkerSet, a StatefulSet of workers, an indexed
 * Job) by deleting all its pods in one call: never half a gang. Its controller brings the members
 * back on healthy nodes (the bad one is fenced first). A JobSet that has used its {@code maxRestarts}
 * is not restarted: one more failure would fail it for good, so a person decides.
 */
final class RestartGroup implements Mitigation {

    /** The label each gang kind puts on its pods. */
    private static final Map<String, String> MEMBER_LABEL = Map.of(
            "JobSet", "jobset.sigs.k8s.io/jobset-name",
            "PyTorchJob", "training.kubeflow.org/job-name",
            "LeaderWorkerSet", "leaderworkerset.sigs.k8s.io/name",
            "Job", "batch.kubernetes.io/job-name");

    private final KubernetesClient client;
    private final Owners owners;
    private final Timing timing;

    RestartGroup(KubernetesClient client, Timing timing) {
        this.client = client;
        this.owners = new Owners(client);
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RESTART_GROUP;
    }

    /** A fingerprint of the members' uids: when it changed, the gang was already restarted. */
    @Override
    public String capture(String target) {
        Mitigation.Target t = new Mitigation.Target(target, null);
        if (t.namespace() == null) return null;
        return gang(t).map(g -> fingerprint(members(g))).orElse(null);
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NamespacedTarget(), new GangExists(), new RestartsLeft());
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Optional<Gang> gang = gang(target);
        if (gang.isEmpty()) {
            return Outcome.failed(target.name() + " is not a gang this version restarts (JobSet, PyTorchJob, LeaderWorkerSet,"
                    + " StatefulSet, indexed Job)", false);
        }
        List<Pod> members = members(gang.get());
        if (members.isEmpty()) {
            return Outcome.failed(gang.get().kind() + " " + target.name() + " has no pods to restart", false);
        }
        if (target.subjectUid() != null && !target.subjectUid().equals(fingerprint(members))) {
            return Outcome.done(gang.get().kind() + " " + target.name() + " was already restarted: its members changed since planning");
        }
        if (dryRun) {
            for (Pod p : members) {
                client.pods().inNamespace(target.namespace()).withName(p.getMetadata().getName()).dryRun().delete();
            }
        } else {
            // All members in one pass, no waiting in between: the gang's controller sees them go together
            // and restarts it whole. (Per pod rather than one collection delete, so each deletion is
            // a plain pod delete every API server, and the sandbox's controllers, handle alike.)
            for (Pod p : members) {
                client.pods().inNamespace(target.namespace()).withName(p.getMetadata().getName()).delete();
            }
        }
        return Outcome.done((dryRun ? "dry run: would restart " : "restarted ") + gang.get().kind() + " " + target.name()
                + " (" + members.size() + " pods together)");
    }

    /** Every member is back, a new pod, Ready. */
    @Override
    public Outcome verify(Mitigation.Target target) {
        Optional<Gang> gang = gang(target);
        if (gang.isEmpty()) return Outcome.failed(target.name() + " disappeared after the restart", false);
        int size = gang.get().size();
        boolean running = timing.until(timing.verifyTimeout(), () -> {
            List<Pod> now = members(gang.get());
            return now.size() >= size && now.stream().allMatch(Pods::ready)
                    && (target.subjectUid() == null || !target.subjectUid().equals(fingerprint(now)));
        });
        return running ? Outcome.done(gang.get().kind() + " " + target.name() + " runs again: " + size + " members Ready")
                : Outcome.failed(gang.get().kind() + " " + target.name() + " is not running again within "
                        + timing.verifyTimeout().toSeconds() + " s: " + members(gang.get()).stream().filter(Pods::ready).count()
                        + " of " + size + " members Ready", false);
    }

    record Gang(String kind, HasMetadata object, Map<String, String> selector, int size) {}

    private Optional<Gang> gang(Mitigation.Target t) {
        Owners.Top top = owners.byName(t.namespace(), t.local());
        if (top == null || top.object() == null) return Optional.empty();
        HasMetadata o = top.object();
        if (o instanceof StatefulSet s) {
            int size = s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
            return Optional.of(new Gang("StatefulSet", o, s.getSpec().getSelector().getMatchLabels(), size));
        }
        String label = MEMBER_LABEL.get(top.kind());
        if (label == null) return Optional.empty();
        Map<String, String> selector = Map.of(label, top.name());
        int size = o instanceof Job j && j.getSpec().getParallelism() != null ? j.getSpec().getParallelism()
                : client.pods().inNamespace(t.namespace()).withLabels(selector).list().getItems().size();
        return Optional.of(new Gang(top.kind(), o, selector, size));
    }

    private List<Pod> members(Gang g) {
        return client.pods().inNamespace(g.object().getMetadata().getNamespace()).withLabels(g.selector()).list().getItems()
                .stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static String fingerprint(List<Pod> pods) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            pods.stream().map(p -> p.getMetadata().getUid()).sorted().forEach(u -> sha.update((u + "\n").getBytes(StandardCharsets.UTF_8)));
            return "gang:" + HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private final class GangExists implements Precondition {
        public String name() {
            return "gang-exists";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return gang(t).isPresent() ? Optional.empty() : Optional.of(t.name() + " is not a gang this version knows how to restart");
        }
    }

    /** JobSet failurePolicy.maxRestarts: a JobSet out of restarts fails for good on the next one. */
    private final class RestartsLeft implements Precondition {
        public String name() {
            return "jobset-restarts-left";
        }

        @SuppressWarnings("unchecked")
        public Optional<String> unmet(Mitigation.Target t) {
            Optional<Gang> g = gang(t);
            if (g.isEmpty() || !(g.get().object() instanceof GenericKubernetesResource js) || !"JobSet".equals(g.get().kind())) {
                return Optional.empty();
            }
            Object spec = js.getAdditionalProperties().get("spec");
            Object status = js.getAdditionalProperties().get("status");
            Object policy = spec instanceof Map<?, ?> m ? m.get("failurePolicy") : null;
            Object max = policy instanceof Map<?, ?> m ? m.get("maxRestarts") : null;
            Object used = status instanceof Map<?, ?> m ? m.get("restarts") : null;
            int maxRestarts = max instanceof Number n ? n.intValue() : 0;
            int restarts = used instanceof Number n ? n.intValue() : 0;
            return restarts >= maxRestarts
                    ? Optional.of("JobSet " + t.name() + " has used " + restarts + " of its " + maxRestarts
                            + " restarts (failurePolicy.maxRestarts): another failure fails it for good; a person decides")
                    : Optional.empty();
        }
    }
}
