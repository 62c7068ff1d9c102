package io.acceltriage.action;

import io.acceltriage.config.DataFiles;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
final class ValidateNode implements Mitigation {

    static final String LABEL = "acceltriage.io/validation";
    static final String AT = "acceltriage.io/validated-at";
    static final String MESSAGE = "acceltriage.io/validation-message";
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
        String namespace = p == null ? "acceltriage" : p.validationNamespace();
        String name = jobName(node);
        Job job;
        try {
            job = render(p == null ? Policy.DEFAULT_VALIDATION_TEMPLATE : p.validationTemplate(), name, namespace, node, level, gpus(n));
        } catch (RuntimeException e) {
            return Outcome.failed("the validation template cannot be used: " + e.getMessage()
                    + "; fix repair.validation.template in the policy", false);
        }
        String run = "dcgmi diag -r " + level;
        if (dryRun) {
            client.batch().v1().jobs().inNamespace(namespace).resource(job).dryRun().create();
            return Outcome.done("dry run: would run " + run + " on " + node + " as Job " + namespace + "/" + name);
        }
        Job running = unfinished(namespace, node).orElseGet(() -> client.batch().v1().jobs().inNamespace(namespace).resource(job).create());
        String jobName = running.getMetadata().getName();
        java.time.Duration timeout = p == null ? java.time.Duration.ofMinutes(30) : p.validationTimeout();
        boolean finished = timing.until(timeout, () -> finished(client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get()));
        if (!finished) {
            return Outcome.failed(node + " stays fenced: " + run + " (Job " + namespace + "/" + jobName + ") did not finish within "
                    + timeout.toMinutes() + " min; look at the Job's pod", false);
        }
        Optional<DcgmDiag> diag = log(namespace, jobName).flatMap(DcgmDiag::parse);
        if (diag.isEmpty()) {
            return Outcome.failed(node + " stays fenced: " + run + " (Job " + namespace + "/" + jobName
                    + ") wrote no diagnostic result to its log; look at the Job's pod", false);
        }
        DcgmDiag d = diag.get();
        String words = d.passed() ? run + ": Pass (" + d.tests() + " tests)" : run + ": " + d.words();
        mark(node, d.passed(), words);
        if (!d.passed()) {
            return Outcome.failed(node + " stays fenced: " + words, false);
        }
        client.batch().v1().jobs().inNamespace(namespace).withName(jobName)
                .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.BACKGROUND).delete();
        return Outcome.done(node + " passed validation: " + words);
    }

    private void mark(String node, boolean passed, String words) {
        client.nodes().withName(node).edit(x -> new NodeBuilder(x).editMetadata().addToLabels(LABEL, passed ? "passed" : "failed")
                .addToAnnotations(AT, Instant.now().toString()).addToAnnotations(MESSAGE, words).endMetadata().build());
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
        String suffix = Long.toString(System.currentTimeMillis() % 2_176_782_336L, 36);
        String head = "validate-" + node;
        if (head.length() > 62 - suffix.length()) head = head.substring(0, 62 - suffix.length()).replaceAll("[-.]+$", "");
        return head + "-" + suffix;
    }

    /** A validation Job of this node still running (a resumed action waits for it instead of starting a second). */
    private Optional<Job> unfinished(String namespace, String node) {
        return client.batch().v1().jobs().inNamespace(namespace).withLabel(JOB_LABEL, node).list().getItems().stream()
                .filter(j -> !finished(j)).findFirst();
    }

    static boolean finished(Job j) {
        if (j == null || j.getStatus() == null) return false;
        return (j.getStatus().getSucceeded() != null && j.getStatus().getSucceeded() > 0)
                || (j.getStatus().getFailed() != null && j.getStatus().getFailed() > 0);
    }

    /** The diagnostic container's log of the Job's pod (the Job controller labels it job-name). */
    private Optional<String> log(String namespace, String job) {
        return log(client, namespace, job, CONTAINER);
    }

    /** The log of {@code container} in the Job's pod (the Job controller labels it job-name); empty when there is none. */
    static Optional<String> log(KubernetesClient client, String namespace, String job, String container) {
        List<Pod> pods = client.pods().inNamespace(namespace).withLabel("job-name", job).list().getItems();
        for (Pod pod : pods) {
            try {
                String text = client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).inContainer(container).getLog();
                if (text != null && !text.isBlank()) return Optional.of(text);
            } catch (KubernetesClientException e) {
                // a pod gone or its log unavailable: try the next one, else report no result
            }
        }
        return Optional.empty();
    }

    /** The template with its placeholders filled, as a Job; fails with the reason when it is not one. */
    Job render(String template, String name, String namespace, String node, int level, int gpus) {
        String text = read(template).replace("${name}", name).replace("${namespace}", namespace).replace("${node}", node)
                .replace("${level}", String.valueOf(level)).replace("${gpus}", String.valueOf(gpus));
        Object parsed = client.getKubernetesSerialization().unmarshal(text);
        if (!(parsed instanceof Job job)) throw new IllegalArgumentException(template + " is not a batch/v1 Job");
        var containers = job.getSpec() == null || job.getSpec().getTemplate().getSpec() == null ? null
                : job.getSpec().getTemplate().getSpec().getContainers();
        if (containers == null || containers.stream().noneMatch(c -> CONTAINER.equals(c.getName()))) {
            throw new IllegalArgumentException(template + " has no container named " + CONTAINER + " (whose log is read)");
        }
        job.getMetadata().setName(name);
        job.getMetadata().setNamespace(namespace);
        if (job.getMetadata().getLabels() == null) job.getMetadata().setLabels(new java.util.HashMap<>());
        job.getMetadata().getLabels().put(JOB_LABEL, node);
        return job;
    }

    static String read(String template) {
        Path file = Path.of(template);
        try {
            if (Files.isRegularFile(file)) return Files.readString(file, StandardCharsets.UTF_8);
            try (InputStream in = DataFiles.class.getClassLoader().getResourceAsStream(template)) {
                if (in == null) throw new IllegalArgumentException(template + ": no such file, nor bundled");
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
