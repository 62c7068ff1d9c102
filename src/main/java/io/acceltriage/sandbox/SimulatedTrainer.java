package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The pretraining JobSet's trainer as far as checkpoints go: every {@code every} while all its members run,
 * it saves a checkpoint and says so twice, the way trainers do — the RFC 3339 time in the annotation
 * {@code acceltriage.io/last-checkpoint} on the JobSet (merge-patched, so it never conflicts with
 * another writer), and a line in rank 0's log in the shape PyTorch Lightning's ModelCheckpoint and
 * torch.distributed.checkpoint users print. Off unless started; the seed's annotation says the last
 * checkpoint was 20 minutes before the sandbox started.
 */
final class SimulatedTrainer implements AutoCloseable {

    static final String ANNOTATION = "acceltriage.io/last-checkpoint";
    static final String NAMESPACE = "ml";
    static final String JOBSET = "llm-pretrain";

    private static final Logger LOG = Logger.getLogger(SimulatedTrainer.class);

    private final KubernetesClient client;
    private final PodLogs logs;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sandbox-trainer");
        t.setDaemon(true);
        return t;
    });
    private long step = 48220;

    SimulatedTrainer(KubernetesClient client, PodLogs logs) {
        this.client = client;
        this.logs = logs;
    }

    /** Checkpoints every {@code every}; zero or negative: never. */
    void start(Duration every) {
        if (every.isZero() || every.isNegative()) return;
        timer.scheduleWithFixedDelay(this::tick, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            checkpoint();
        } catch (KubernetesClientException | IllegalStateException e) {
            LOG.debugf("sandbox trainer: no checkpoint this time: %s", e.getMessage());
        }
    }

    /** Saves a checkpoint now, if every member of the gang runs Ready; returns its time, null when it could not. */
    Instant checkpoint() {
        List<Pod> members = client.pods().inNamespace(NAMESPACE).withLabel("jobset.sigs.k8s.io/jobset-name", JOBSET).list().getItems()
                .stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        boolean running = members.size() == 4 && members.stream().allMatch(p -> p.getStatus() != null
                && p.getStatus().getContainerStatuses() != null && !p.getStatus().getContainerStatuses().isEmpty()
                && p.getStatus().getContainerStatuses().stream().allMatch(s -> Boolean.TRUE.equals(s.getReady())));
        if (!running) return null;
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        step += 250;
        client.genericKubernetesResources(io.acceltriage.cluster.Owners.CUSTOM.get("JobSet")).inNamespace(NAMESPACE).withName(JOBSET)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"annotations\":{\"" + ANNOTATION + "\":\"" + now + "\"}}}");
        members.stream().filter(p -> "0".equals(p.getMetadata().getLabels().get("batch.kubernetes.io/job-completion-index")))
                .findFirst().ifPresent(rank0 -> logs.append(NAMESPACE, rank0.getMetadata().getName(), "trainer",
                        "[rank0]: Saving checkpoint at step " + step + " to /ckpt/llm-pretrain/step_" + step + "\n"
                                + "[rank0]: Epoch 0, global step " + step + ": 'step' reached " + step + " (best " + step
                                + "), saving model to '/ckpt/llm-pretrain/step_" + step + ".ckpt'\n"));
        return now;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
