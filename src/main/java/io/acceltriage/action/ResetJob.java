package io.acceltriage.action;

import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;

/**
 * The GPU reset run as a Job pinned to the node ({@code repair.resetMethod: job}), from the template
 * {@code repair.resetJob.template} (bundled: {@code policies/reset-gpu-job.yaml}, {@code nvidia-smi
 * --gpu-reset -i N}, privileged as NVIDIA documents). The outcome is the Job's (succeeded or failed), the
 * words the container's log, as nvidia-smi prints them. A Job that succeeded is deleted; one that failed
 * stays for a person. {@link ResetGpu} has already evicted the GPU's pods and paused the operands.
 */
final class ResetJob {

    static final String CONTAINER = "gpu-reset";
    /** On the Job: which node it resets a GPU of, so a resumed reset finds the Job it already started. */
    static final String JOB_LABEL = "acceltriage.io/reset-gpu";

    /** What the reset answered: whether it ran to an end within the bound, whether it worked, and its words. */
    record Answer(boolean answered, boolean succeeded, String said) {}

    private final KubernetesClient client;
    private final Timing timing;

    ResetJob(KubernetesClient client, Timing timing) {
        this.client = client;
        this.timing = timing;
    }

    Answer run(Policy p, String node, int gpu, Duration wait) {
        String namespace = p == null ? "acceltriage" : p.resetNamespace();
        Job job = render(p == null ? Policy.DEFAULT_RESET_TEMPLATE : p.resetTemplate(), name(node, gpu), namespace, node, gpu);
        Job running = client.batch().v1().jobs().inNamespace(namespace).withLabel(JOB_LABEL, node).list().getItems().stream()
                .filter(j -> !ValidateNode.finished(j)).findFirst()
                .orElseGet(() -> client.batch().v1().jobs().inNamespace(namespace).resource(job).create());
        String jobName = running.getMetadata().getName();
        boolean finished = timing.until(wait, () -> ValidateNode.finished(client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get()));
        String where = "Job " + namespace + "/" + jobName;
        if (!finished) return new Answer(false, false, where + " did not finish");
        Job done = client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get();
        boolean succeeded = done.getStatus().getSucceeded() != null && done.getStatus().getSucceeded() > 0;
        String said = ValidateNode.log(client, namespace, jobName, CONTAINER).map(String::strip)
                .orElse(succeeded ? "nvidia-smi exited 0" : "nvidia-smi failed and wrote nothing") + " (" + where + ")";
        if (succeeded) {
            client.batch().v1().jobs().inNamespace(namespace).withName(jobName).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        }
        return new Answer(true, succeeded, said);
    }

    /** The template with its placeholders filled, as a Job; fails with the reason when it is not one. */
    Job render(String template, String name, String namespace, String node, int gpu) {
        String text = ValidateNode.read(template).replace("${name}", name).replace("${namespace}", namespace).replace("${node}", node)
                .replace("${gpu}", String.valueOf(gpu));
        Object parsed = client.getKubernetesSerialization().unmarshal(text);
        if (!(parsed instanceof Job job)) throw new IllegalArgumentException(template + " is not a batch/v1 Job");
        var containers = job.getSpec() == null || job.getSpec().getTemplate().getSpec() == null ? null
                : job.getSpec().getTemplate().getSpec().getContainers();
        if (containers == null || containers.stream().noneMatch(c -> CONTAINER.equals(c.getName()))) {
            throw new IllegalArgumentException(template + " has no container named " + CONTAINER + " (whose log is read)");
        }
        job.getMetadata().setName(name);
        job.getMetadata().setNamespace(namespace);
        if (job.getMetadata().getLabels() == null) job.getMetadata().setLabels(new HashMap<>());
        job.getMetadata().getLabels().put(JOB_LABEL, node);
        return job;
    }

    /** A Job name within 63 characters, unique per run, that names the node and the GPU. */
    static String name(String node, int gpu) {
        String suffix = Long.toString(System.currentTimeMillis() % 2_176_782_336L, 36);
        String head = "reset-gpu" + gpu + "-" + node;
        if (head.length() > 62 - suffix.length()) head = head.substring(0, 62 - suffix.length()).replaceAll("[-.]+$", "");
        return head + "-" + suffix;
    }
}
