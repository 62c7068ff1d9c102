package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * An active health check before a fenced node comes back: DCGM diagnostics ({@code dcgmi diag -r N -j})
 * as a Job pinned to the node, from a template ({@code repair.validation.template}, an operator's file
 * or the bundled {@code policies/validate-node-job.yaml}), the level per pool in policy. The Job's pod
 * log is read as DCGM's JSON. A pass is written on the node ({@value #LABEL}{@code =passed} and the
 * time in {@value #AT}), which is what {@link ReturnNode} takes it back on; a failure leaves the node
 * fenced and fails the action with the failing tests in DCGM's words, so the incident escalates them.
 * The node itself is never uncordoned here.
 */
public final class ValidateNode implements Mitigation {

    static final String LABEL = io.acceltriage.cluster.ClusterFacts.VALIDATION_LABEL;
    static final String AT = "acceltriage.io/validated-at";
    static final String MESSAGE = io.acceltriage.cluster.ClusterFacts.VALIDATION_MESSAGE;
    static final String CONTAINER = "dcgm-diag";
    /** On the Job: which node it validates, so a resumed action finds the Job it already started. */
    static final String JOB_LABEL = "acceltriage.io/validate-node";

    private final KubernetesClient client;
    private final Supplier<Policy> policy;
    private final List<String> poolLabels;
    private final Timing timing;

    ValidateNode(KubernetesClient client, Supplier<Policy> policy, List<String> poolLabels, Timing timing) {
        this.client = client;
        this.policy = policy;
        this.poolLabels = poolLabels;
        this.timing = timing;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.VALIDATE_NODE;
    }

    /** Fenced and back from repair: diagnostics on a node that serves, or that a repairer still holds, prove nothing. */
    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeFenced(client), new BackFromRepair(client, policy));
    }

    /** The repairer answered (handshake label, or the medik8s remediation succeeded) and did not report failure. */
    record BackFromRepair(KubernetesClient client, Supplier<Policy> policy) implements Precondition {
        public String name() {
            return "back-from-repair";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            Node n = client.nodes().withName(t.name()).get();
            if (n == null) return Optional.of("node " + t.name() + " does not exist (it may have been replaced)");
            if ("failed".equals(RepairNode.labels(n).get(RepairNode.LABEL))) {
                return Optional.of("the repairer reports failure on " + t.name() + "; a person looks first");
            }
            return RepairNode.stillWithRepair(client, policy.get(), n).map(why -> "node " + t.name() + " is still with repair: " + why);
        }
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        String node = target.name();
        Node n = client.nodes().withName(node).get();
        if (n == null) return Outcome.failed("node " + node + " does not exist", false);
        Policy p = policy.get();
        int level = p == null ? 2 : p.validationLevel(pool(n));
        java.time.Duration timeout = p == null ? java.time.Duration.ofMinutes(30) : p.validationTimeout();
        Diagnosis d = diagnose(client, p, timing, n, level, timeout, dryRun);
        if (d.dryRun()) return Outcome.done(d.words());
        if (!d.ran()) return Outcome.failed(node + " stays fenced: " + d.words(), false);
        mark(node, d.passed(), d.words());
        return d.passed() ? Outcome.done(node + " passed validation: " + d.words()) : Outcome.failed(node + " stays fenced: " + d.words(), false);
    }

    /**
     * What one DCGM diagnostic of a node said: {@code ran} when it wrote a result (then {@code passed} and DCGM's
     * words), else why there is none (template, timeout, no JSON), which is never a pass.
     */
    record Diagnosis(boolean ran, boolean passed, boolean dryRun, String words) {}

    /**
     * Runs {@code dcgmi diag -r level} as a Job pinned to the node and reads its JSON back: the part of validate-node
     * the rollout canary shares. A Job of this node still running is waited for rather than a second started; a passed
     * Job is deleted, a failed one stays for a person.
     */
    static Diagnosis diagnose(KubernetesClient client, Policy p, Timing timing, Node n, int level, java.time.Duration timeout,
            boolean dryRun) {
        String node = n.getMetadata().getName();
        String namespace = p == null ? "acceltriage" : p.validationNamespace();
        Job job;
        try {
            job = Jobs.render(client, p == null ? Policy.DEFAULT_VALIDATION_TEMPLATE : p.validationTemplate(), Map.of("name", jobName(node),
                    "namespace", namespace, "node", node, "level", String.valueOf(level), "gpus", String.valueOf(gpus(n))), CONTAINER, JOB_LABEL);
        } catch (RuntimeException e) {
            return new Diagnosis(false, false, false, "the validation template cannot be used: " + e.getMessage()
                    + "; fix repair.validation.template in the policy");
        }
        String run = "dcgmi diag -r " + level;
        if (dryRun) {
            client.batch().v1().jobs().inNamespace(namespace).resource(job).dryRun().create();
            return new Diagnosis(false, false, true, "dry run: would run " + run + " on " + node + " as Job " + namespace + "/"
                    + job.getMetadata().getName());
        }
        Job running = client.batch().v1().jobs().inNamespace(namespace).withLabel(JOB_LABEL, node).list().getItems().stream()
                .filter(j -> !Jobs.finished(j)).findFirst()
                .orElseGet(() -> client.batch().v1().jobs().inNamespace(namespace).resource(job).create());
        String jobName = running.getMetadata().getName();
        boolean finished = timing.until(timeout, () -> Jobs.finished(client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get()));
        if (!finished) {
            return new Diagnosis(false, false, false, run + " (Job " + namespace + "/" + jobName + ") did not finish within "
                    + timeout.toMinutes() + " min; look at the Job's pod");
        }
        Optional<DcgmDiag> diag = Jobs.log(client, namespace, jobName, CONTAINER).flatMap(DcgmDiag::parse);
        if (diag.isEmpty()) {
            return new Diagnosis(false, false, false, run + " (Job " + namespace + "/" + jobName
                    + ") wrote no diagnostic result to its log; look at the Job's pod");
        }
        DcgmDiag d = diag.get();
        if (d.passed()) {
            client.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                    .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.BACKGROUND).delete();
        }
        return new Diagnosis(true, d.passed(), false, d.passed() ? run + ": Pass (" + d.tests() + " tests)" : run + ": " + d.words());
    }

    private void mark(String node, boolean passed, String words) {
        client.nodes().withName(node).edit(x -> marked(x, passed, words, Instant.now()));
    }

    private static Node marked(Node n, boolean passed, String words, Instant at) {
        return new NodeBuilder(n).editMetadata().addToLabels(LABEL, passed ? "passed" : "failed")
                .addToAnnotations(AT, at.toString()).addToAnnotations(MESSAGE, words).endMetadata().build();
    }

    /**
     * The node as validate-node leaves it after a {@code dcgmi diag -j} run that wrote {@code json} (replay writes a
     * scenario's recorded diagnostic this way); empty when {@code json} is no DCGM diagnostic result.
     */
    public static Optional<Node> markedWith(Node n, String json, Instant at) {
        return DcgmDiag.parse(json).map(d -> marked(n, d.passed(), d.passed() ? "Pass (" + d.tests() + " tests)" : d.words(), at));
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        Node n = client.nodes().withName(target.name()).get();
        return n != null && "passed".equals(RepairNode.labels(n).get(LABEL)) && Pods.fenced(n)
                ? Outcome.done("node " + target.name() + " carries a passed validation and is still fenced until return-node")
                : Outcome.failed("node " + target.name() + " lost its validation mark or was uncordoned", false);
    }

    /** The time of the node's last passed validation; empty when its last validation did not pass or none ran. */
    static Optional<Instant> passedAt(Node n) {
        if (!"passed".equals(RepairNode.labels(n).get(LABEL))) return Optional.empty();
        Map<String, String> notes = n.getMetadata().getAnnotations();
        try {
            return notes == null || notes.get(AT) == null ? Optional.empty() : Optional.of(Instant.parse(notes.get(AT)));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private String pool(Node n) {
        return Repairers.pool(n, poolLabels);
    }

    private static int gpus(Node n) {
        var capacity = n.getStatus() == null || n.getStatus().getCapacity() == null ? null : n.getStatus().getCapacity().get(ResetGpu.GPU);
        return capacity == null ? 0 : capacity.getNumericalAmount().intValue();
    }

    /** A Job name within 63 characters, unique per run, that still names the node. */
    static String jobName(String node) {
        return Jobs.name("validate-" + node);
    }
}
