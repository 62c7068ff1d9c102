package io.acceltriage.action;

import io.acceltriage.policy.Policy;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

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
                .filter(j -> !Jobs.finished(j)).findFirst()
                .orElseGet(() -> client.batch().v1().jobs().inNamespace(namespace).resource(job).create());
        String jobName = running.getMetadata().getName();
        boolean finished = timing.until(wait, () -> Jobs.finished(client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get()));
        String where = "Job " + namespace + "/" + jobName;
        if (!finished) return new Answer(false, false, where + " did not finish");
        Job done = client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get();
        boolean succeeded = done.getStatus().getSucceeded() != null && done.getStatus().getSucceeded() > 0;
        String said = Jobs.log(client, namespace, jobName, CONTAINER).map(String::strip)
                .orElse(succeeded ? "nvidia-smi exited 0" : "nvidia-smi failed and wrote nothing") + " (" + where + ")";
        if (succeeded) {
            client.batch().v1().jobs().inNamespace(namespace).withName(jobName).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        }
        return new Answer(true, succeeded, said);
    }

    /** The template with its placeholders filled, as a Job; fails with the reason when it is not one. */
    Job render(String template, String name, String namespace, String node, int gpu) {
        return Jobs.render(client, template, java.util.Map.of("name", name, "namespace", namespace, "node", node, "gpu", String.valueOf(gpu)),
                CONTAINER, JOB_LABEL);
    }

    /** A Job name within 63 characters, unique per run, that names the node and the GPU. */
    static String name(String node, int gpu) {
        return Jobs.name("reset-gpu" + gpu + "-" + node);
    }
}
