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
 * back; the bad node is fenced first (cordon-node is proposed with the restart), so only the member
 * that ran there is placed on another node, and the others go back to the healthy nodes they left,
 * which hold the image and the GPUs they just freed (kube-scheduler's ImageLocality and
 * NodeResourcesFit score them first). The verification says, member by member, which restarted in
 * place and which was replaced. A JobSet that has used its {@code maxRestarts} is not restarted: one
 * more failure would fail it for good, so a person decides.
 *
 * <p>How each kind comes back, and where "in place" is not guaranteed: the members are re-created by
 * the gang's own controller from its pod template, with the template's scheduling constraints (node
 * selector, affinity, tolerations); acceltriage does not pin them, because a Job's (and so a JobSet's
 * and an indexed Job's) pod template is immutable while it runs, a PyTorchJob's pods are created by
 * the training operator from its replica spec, a LeaderWorkerSet recreates its group from the
 * leader/worker templates, and a StatefulSet keeps each pod's name but not its node (unless a local
 * volume binds it). So the healthy members return to their nodes only while those nodes stay free: a
 * pending pod of another workload can take the freed GPUs first (then the member lands elsewhere and
 * the verification says so), and a gang placed by topology (JobSet exclusive placement, Kueue
 * topology-aware scheduling) is placed again as one block.
 *
 * <p>A restart proposed for a degraded device ({@link ActionRecord#atCheckpoint()}) first waits for the
 * gang's next checkpoint: its last checkpoint, read as the evidence reads it (the annotation the policy
 * names, {@code checkpoints.annotation}, else the tool {@code checkpoints.tool}: seconds since), moving
 * past the time the restart was proposed, or {@code checkpoints.maxWait}, whichever comes first.
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
    private final java.util.function.Supplier<io.acceltriage.policy.Policy> policy;
    /** Where each member ran before this process restarted the gang, per target: what "in place" is measured against. */
    private final Map<String, Map<String, String>> placedBefore = new java.util.concurrent.ConcurrentHashMap<>();

    /** Reads the gang's last checkpoint as the evidence does: the annotation, else the policy's tool. */
    private final io.acceltriage.evidence.Checkpoints checkpoints;

    RestartGroup(KubernetesClient client, Timing timing) {
        this(client, timing, () -> null, null);
    }

    /** {@code checkpoints}: null reads the annotation only (no metrics). */
    RestartGroup(KubernetesClient client, Timing timing, java.util.function.Supplier<io.acceltriage.policy.Policy> policy,
            io.acceltriage.evidence.Checkpoints checkpoints) {
        this.client = client;
        this.owners = new Owners(client);
        this.timing = timing;
        this.policy = policy;
        this.checkpoints = checkpoints != null ? checkpoints
                : io.acceltriage.evidence.Checkpoints.reading(io.acceltriage.cluster.ClusterReads.direct(client), null, null);
    }

    /** Whether a restart waits for the gang's next checkpoint, and why it waits or may run. */
    record CheckpointWait(boolean waiting, String why) {}

    /** Where a gang's last checkpoint is read (the policy's annotation, else its tool) and how long a wait may last. */
    private record CheckpointPolicy(String annotation, String tool, java.time.Duration maxWait) {}

    private CheckpointPolicy checkpointPolicy() {
        io.acceltriage.policy.Policy pol = policy.get();
        return pol == null ? new CheckpointPolicy(io.acceltriage.policy.Policy.DEFAULT_CHECKPOINT_ANNOTATION, null, java.time.Duration.ofMinutes(30))
                : new CheckpointPolicy(pol.checkpointAnnotation(), pol.checkpointTool(), pol.checkpointMaxWait());
    }

    /**
     * The wait of a restart proposed at {@code since}: over once the gang's last checkpoint, read as the evidence
     * reads it (the policy's annotation, else its tool), is after it, or once the policy's longest wait has passed.
     */
    CheckpointWait checkpointWait(String target, java.time.Instant since, java.time.Instant now) {
        CheckpointPolicy cp = checkpointPolicy();
        Mitigation.Target t = new Mitigation.Target(target, null);
        Optional<Gang> g = t.namespace() == null ? Optional.empty() : gang(t);
        if (g.isEmpty()) return new CheckpointWait(false, target + " is not a gang to wait for");
        Optional<io.acceltriage.evidence.Checkpoints.Last> read = checkpoints.last(t.namespace(), t.local(), cp.annotation(), cp.tool(), now);
        java.time.Instant last = read.map(io.acceltriage.evidence.Checkpoints.Last::at).orElse(null);
        String from = read.map(io.acceltriage.evidence.Checkpoints.Last::source)
                .orElse(cp.annotation() + (cp.tool() == null ? "" : " or " + cp.tool()));
        if (last != null && last.isAfter(since)) {
            return new CheckpointWait(false, "checkpointed at " + last + " (" + from + "), after the restart was proposed");
        }
        java.time.Instant until = since.plus(cp.maxWait());
        if (!now.isBefore(until)) {
            return new CheckpointWait(false, "no checkpoint since " + since + " within the policy's checkpoints.maxWait of "
                    + cp.maxWait().toMinutes() + " min; restarting anyway" + (last == null ? "" : " (last at " + last + ")"));
        }
        return new CheckpointWait(true, "waiting for checkpoint: " + g.get().kind() + " " + target + " last checkpointed "
                + (last == null ? "at an unknown time" : "at " + last) + " (" + from + "); it restarts after its next one, at the latest at "
                + until);
    }

    /**
     * The wait of a drain of {@code node} proposed at {@code since} to empty it at the next checkpoint: over once every
     * gang with a live member on the node (its top owner, by the one owner walk) that reports its checkpoints has
     * checkpointed after {@code since}, or once the policy's longest wait has passed. A gang that reports none is not
     * waited for (nothing would ever end the wait); the gang's own restart, proposed with the drain, moves it whole.
     */
    CheckpointWait nodeCheckpointWait(String node, java.time.Instant since, java.time.Instant now) {
        CheckpointPolicy cp = checkpointPolicy();
        Map<String, Owners.Top> gangs = new java.util.TreeMap<>();
        for (Pod p : Pods.onNode(client, node)) {
            if (p.getMetadata().getDeletionTimestamp() != null || Pods.ownedByDaemonSet(p) || Pods.mirror(p)) continue;
            Owners.Top top = owners.topOf(p);
            if (top != null && (top.gang() || "StatefulSet".equals(top.kind()))) gangs.putIfAbsent(top.namespace() + "/" + top.name(), top);
        }
        List<String> saved = new java.util.ArrayList<>();
        List<String> unsaved = new java.util.ArrayList<>();
        for (Owners.Top g : gangs.values()) {
            Optional<io.acceltriage.evidence.Checkpoints.Last> read = checkpoints.last(g.namespace(), g.name(), cp.annotation(), cp.tool(), now);
            if (read.isEmpty()) continue;
            String ref = g.kind() + " " + g.namespace() + "/" + g.name();
            if (read.get().at().isAfter(since)) saved.add(ref + " checkpointed at " + read.get().at() + " (" + read.get().source() + ")");
            else unsaved.add(ref + " last checkpointed at " + read.get().at() + " (" + read.get().source() + ")");
        }
        if (unsaved.isEmpty()) {
            return new CheckpointWait(false, saved.isEmpty() ? "no gang that reports checkpoints has a member on " + node + " now"
                    : String.join("; ", saved) + ", after the drain was proposed");
        }
        java.time.Instant until = since.plus(cp.maxWait());
        if (!now.isBefore(until)) {
            return new CheckpointWait(false, "no checkpoint since " + since + " within the policy's checkpoints.maxWait of "
                    + cp.maxWait().toMinutes() + " min (" + String.join("; ", unsaved) + "); draining " + node + " anyway");
        }
        return new CheckpointWait(true, "waiting for checkpoint: " + String.join("; ", unsaved) + "; " + node
                + " is drained after their next one, at the latest at " + until);
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
        if (!dryRun) placedBefore.put(target.name(), placement(members));
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
        return running ? Outcome.done(gang.get().kind() + " " + target.name() + " runs again: " + size + " members Ready"
                        + placementChange(placedBefore.remove(target.name()), placement(members(gang.get()))))
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

    /** Member → node: a member is its completion index (Jobs, JobSets), its rank label, or its name (StatefulSet). */
    private static Map<String, String> placement(List<Pod> pods) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (Pod p : pods) {
            Map<String, String> l = p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
            String member = l.getOrDefault("batch.kubernetes.io/job-completion-index",
                    l.getOrDefault("training.kubeflow.org/replica-index", p.getMetadata().getName()));
            String job = l.getOrDefault("jobset.sigs.k8s.io/job-index", "");
            out.put(job.isEmpty() ? member : job + "/" + member, p.getSpec() == null ? null : p.getSpec().getNodeName());
        }
        return out;
    }

    /** "; 3 restarted in place (…), 1 replaced (a → b)": what the restart did to each member's node. */
    private static String placementChange(Map<String, String> before, Map<String, String> after) {
        if (before == null || before.isEmpty()) return "";
        List<String> inPlace = new java.util.ArrayList<>();
        List<String> moved = new java.util.ArrayList<>();
        for (Map.Entry<String, String> e : before.entrySet()) {
            String now = after.get(e.getKey());
            if (now == null) continue;
            if (now.equals(e.getValue())) inPlace.add(now);
            else moved.add(e.getValue() + " → " + now);
        }
        return "; " + inPlace.size() + " restarted in place (" + String.join(", ", inPlace) + "), " + moved.size() + " replaced ("
                + String.join(", ", moved) + ")";
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
