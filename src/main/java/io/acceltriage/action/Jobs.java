package io.acceltriage.action;

import io.acceltriage.config.DataFiles;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the Jobs acceltriage runs on a node share (the DCGM diagnostic of {@link ValidateNode} and the
 * canary, the GPU reset of {@link ResetJob}): a template read from an operator's file or the bundle,
 * filled and checked to be a Job with the container whose log is read; whether it finished; its log.
 */
final class Jobs {

    private Jobs() {
    }

    /** The template's text: a file when one exists at that path, else the bundled resource. */
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

    /**
     * The template with each {@code ${key}} replaced, as a Job named {@code name} in {@code namespace}, labelled
     * {@code label=node} so a resumed action finds the Job it already started; fails with the reason when the
     * template is not a Job or lacks {@code container}.
     */
    static Job render(KubernetesClient client, String template, Map<String, String> values, String container, String label) {
        String text = read(template);
        for (Map.Entry<String, String> v : values.entrySet()) text = text.replace("${" + v.getKey() + "}", v.getValue());
        Object parsed = client.getKubernetesSerialization().unmarshal(text);
        if (!(parsed instanceof Job job)) throw new IllegalArgumentException(template + " is not a batch/v1 Job");
        var containers = job.getSpec() == null || job.getSpec().getTemplate().getSpec() == null ? null
                : job.getSpec().getTemplate().getSpec().getContainers();
        if (containers == null || containers.stream().noneMatch(c -> container.equals(c.getName()))) {
            throw new IllegalArgumentException(template + " has no container named " + container + " (whose log is read)");
        }
        job.getMetadata().setName(values.get("name"));
        job.getMetadata().setNamespace(values.get("namespace"));
        if (job.getMetadata().getLabels() == null) job.getMetadata().setLabels(new HashMap<>());
        job.getMetadata().getLabels().put(label, values.get("node"));
        return job;
    }

    /** A Job name within 63 characters, unique per run, that starts with {@code head} as far as it fits. */
    static String name(String head) {
        String suffix = Long.toString(System.currentTimeMillis() % 2_176_782_336L, 36);
        if (head.length() > 62 - suffix.length()) head = head.substring(0, 62 - suffix.length()).replaceAll("[-.]+$", "");
        return head + "-" + suffix;
    }

    static boolean finished(Job j) {
        if (j == null || j.getStatus() == null) return false;
        return (j.getStatus().getSucceeded() != null && j.getStatus().getSucceeded() > 0)
                || (j.getStatus().getFailed() != null && j.getStatus().getFailed() > 0);
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
}
