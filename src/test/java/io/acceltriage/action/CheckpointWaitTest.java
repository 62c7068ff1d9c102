package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.acceltriage.cluster.ClusterReads;
import io.acceltriage.evidence.Checkpoints;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.testing.BackfilledPrometheus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The wait of a restart proposed at a checkpoint reads the gang's last checkpoint as the evidence does:
 * the annotation, else the policy's tool ({@code policies/training.yaml}: {@code training_last_checkpoint},
 * seconds since the job's last checkpoint). The trainer here exports only the metric, scraped every
 * second by a real Prometheus; the gang is a StatefulSet of the simulated cluster with no annotation.
 */
class CheckpointWaitTest {

    private static final String NS = "ckpt-wait";
    private static final String GANG = NS + "/trainer";

    /** The trainer's last checkpoint (Unix seconds) as its exporter reports it; the tests move it. */
    private static final AtomicLong lastCheckpoint = new AtomicLong();
    private static HttpServer exporter;
    private static BackfilledPrometheus prometheus;
    private static SimulatedCluster cluster;
    private static RestartGroup restarts;
    private static RestartGroup annotationOnly;

    @BeforeAll
    static void start() throws IOException, InterruptedException {
        long now = Instant.now().getEpochSecond();
        lastCheckpoint.set(now - 600);
        exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        exporter.createContext("/metrics", exchange -> {
            byte[] body = ("# TYPE training_last_checkpoint_timestamp_seconds gauge\n"
                    + "training_last_checkpoint_timestamp_seconds{namespace=\"" + NS + "\",pod=\"trainer-0\"} " + lastCheckpoint.get() + "\n")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        exporter.start();
        // An hour ago the trainer had checkpointed too (the backfill BackfilledPrometheus waits for), long stale now.
        prometheus = BackfilledPrometheus.start("# TYPE training_last_checkpoint_timestamp_seconds gauge\n"
                + "training_last_checkpoint_timestamp_seconds{namespace=\"" + NS + "\",pod=\"trainer-0\"} " + (now - 4000) + " " + (now - 3600)
                + "\n# EOF\n", "training_last_checkpoint_timestamp_seconds", "127.0.0.1:" + exporter.getAddress().getPort());

        cluster = SimulatedCluster.start();
        cluster.client().apps().statefulSets().inNamespace(NS).resource(io.acceltriage.testing.Trainers.statefulSet(NS, "trainer", Map.of())).create();

        Policy training = Policy.load("policies/training.yaml");
        PrometheusSource source = new PrometheusSource(URI.create(prometheus.url()), Duration.ofSeconds(5), Duration.ofMinutes(10));
        Checkpoints reading = Checkpoints.reading(ClusterReads.direct(cluster.client()), source, Toolsets.load("tools"));
        restarts = new RestartGroup(cluster.client(), MitigationsTest.FAST, () -> training, reading);
        annotationOnly = new RestartGroup(cluster.client(), MitigationsTest.FAST, () -> training, null);
        // The scrape of the exporter is in: the tool answers about ten minutes.
        prometheus.await("the trainer's metric scraped", Duration.ofSeconds(30),
                () -> reading.last(NS, "trainer", "acceltriage.io/last-checkpoint", "training_last_checkpoint", Instant.now()).isPresent());
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
        if (prometheus != null) prometheus.close();
        if (exporter != null) exporter.stop(0);
    }

    @Test
    void aRestartWaitsUntilTheMetricSaysTheGangCheckpointedAfterItWasProposed() {
        Instant proposed = Instant.now().minusSeconds(60);
        RestartGroup.CheckpointWait before = restarts.checkpointWait(GANG, proposed, Instant.now());
        assertTrue(before.waiting(), before.why());
        assertTrue(before.why().contains("tool training_last_checkpoint"), before.why());

        lastCheckpoint.set(Instant.now().getEpochSecond() - 30);
        prometheus.await("the new checkpoint scraped", Duration.ofSeconds(30),
                () -> !restarts.checkpointWait(GANG, proposed, Instant.now()).waiting());
        RestartGroup.CheckpointWait after = restarts.checkpointWait(GANG, proposed, Instant.now());
        assertTrue(after.why().contains("after the restart was proposed") && after.why().contains("tool training_last_checkpoint"),
                after.why());

        // Read as before this change (the annotation only), the same gang would still wait out checkpoints.maxWait.
        RestartGroup.CheckpointWait blind = annotationOnly.checkpointWait(GANG, proposed, Instant.now());
        assertTrue(blind.waiting(), blind.why());
        assertFalse(blind.why().contains("tool"), blind.why());
    }
}
