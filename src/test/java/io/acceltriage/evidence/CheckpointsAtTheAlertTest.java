package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.cluster.ClusterReads;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.testing.BackfilledPrometheus;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint a triage states is the one at the alert's time, read from a real Prometheus through the tool of
 * {@code tools/training.yaml} ({@code training_last_checkpoint}: seconds since the job's last checkpoint), as the
 * annotation is read: an alert of 70 minutes ago whose trainer had checkpointed 12 minutes before it, and checkpointed
 * again five minutes after it, before its exporter went away ten minutes later (so nothing answers now).
 */
class CheckpointsAtTheAlertTest {

    private static final String NS = "ckpt-at";
    private static final Instant ALERT = Instant.now().minus(Duration.ofMinutes(70)).truncatedTo(ChronoUnit.MINUTES);

    private static BackfilledPrometheus prometheus;
    private static SimulatedCluster cluster;
    private static Checkpoints checkpoints;

    @BeforeAll
    static void start() throws Exception {
        StringBuilder series = new StringBuilder("# TYPE training_last_checkpoint_timestamp_seconds gauge\n");
        for (Instant t = ALERT.minus(Duration.ofMinutes(30)); !t.isAfter(ALERT.plus(Duration.ofMinutes(15))); t = t.plusSeconds(15)) {
            Instant last = t.isBefore(ALERT.plus(Duration.ofMinutes(5))) ? ALERT.minus(Duration.ofMinutes(12)) : ALERT.plus(Duration.ofMinutes(5));
            series.append("training_last_checkpoint_timestamp_seconds{namespace=\"").append(NS).append("\",pod=\"trainer-0\"} ")
                    .append(last.getEpochSecond()).append(' ').append(t.getEpochSecond()).append('\n');
        }
        series.append("# EOF\n");
        prometheus = BackfilledPrometheus.start(series.toString(), "training_last_checkpoint_timestamp_seconds");
        cluster = SimulatedCluster.start();
        cluster.client().apps().statefulSets().inNamespace(NS).resource(io.acceltriage.testing.Trainers.statefulSet(NS, "trainer", Map.of())).create();
        PrometheusSource source = new PrometheusSource(URI.create(prometheus.url()), Duration.ofSeconds(5), Duration.ofMinutes(10));
        checkpoints = new Checkpoints(ClusterReads.direct(cluster.client()), source, Toolsets.load("tools"), List.of("nvidia.com/gpu"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
        if (prometheus != null) prometheus.close();
    }

    @Test
    void theToolIsReadAtTheAlertsTimeSoTheSecondsAreThoseBeforeTheAlert() {
        Workload gang = new Workload("StatefulSet", NS, "trainer", true, false, List.of(), List.of("gpu-a"), 2, 2);
        List<Observation> read = checkpoints.of(List.of(gang), new Checkpoints.Where("acceltriage.io/last-checkpoint",
                "training_last_checkpoint"), ALERT);
        assertEquals(1, read.size(), "the tool answers at the alert's time: " + read);
        Facts.GangCheckpoint c = (Facts.GangCheckpoint) read.get(0).fact();
        assertEquals(720, c.secondsSince(), read.get(0).summary());
        assertEquals("tool training_last_checkpoint", c.source());
        assertTrue(read.get(0).summary().contains("720 s before the alert"), read.get(0).summary());
    }
}
