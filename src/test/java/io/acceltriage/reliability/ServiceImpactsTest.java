package io.acceltriage.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.testing.BackfilledPrometheus;
import io.acceltriage.testing.ServerProcess;
import io.acceltriage.testing.WorkloadSeries;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fault's service impact read from a real Prometheus holding an hour of a vLLM deployment's and a
 * training job's series (backfilled with promtool): latency quantiles, failed requests, the slowest
 * rank's step time before and after, the training time lost and the work since the last checkpoint —
 * each figure what Prometheus computes from the series, and "not measured" where there is nothing.
 */
class ServiceImpactsTest {

    static final Instant FAULT = Instant.now().minus(Duration.ofMinutes(45)).truncatedTo(ChronoUnit.MINUTES);
    static BackfilledPrometheus prometheus;

    @BeforeAll
    static void startPrometheusOnAnHourOfSeries() throws Exception {
        prometheus = BackfilledPrometheus.start(WorkloadSeries.around(FAULT, "serve", List.of("vllm-0", "vllm-1", "vllm-2"), "vllm-1",
                "ml", List.of("rank-0", "rank-1", "rank-2", "rank-3"), "rank-2"), "training_step_duration_seconds_count");
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) prometheus.close();
    }

    private static ServiceImpacts impacts(String url) {
        return new ServiceImpacts(Optional.of(new PrometheusSource(URI.create(url), Duration.ofSeconds(5), Duration.ofMinutes(10))),
                Toolsets.load("tools"), Duration.ofMinutes(15));
    }

    @Test
    void aSlowedReplicaShowsAsLatencyAndFailedRequestsBeforeAndAfterTheFault() throws Exception {
        ServiceImpact i = impacts(prometheus.url()).measure(FAULT, List.of("serve"), Instant.now());

        assertEquals(ServiceImpact.Status.MEASURED, i.status(), i.toString());
        Map<String, ServiceImpact.Reading> r = i.readings().stream().collect(Collectors.toMap(ServiceImpact.Reading::tool, x -> x));
        assertEquals(List.of("vllm_failed_requests_over", "vllm_latency_p50_over", "vllm_latency_p99_over"), r.keySet().stream().sorted().toList(),
                "only the series the deployment serves: " + i);
        // All requests in (0.25, 0.5] before; after, a third of them in (2.5, 5]: Prometheus interpolates within the bucket.
        assertEquals(0.375, r.get("vllm_latency_p50_over").before(), 1e-3);
        assertEquals(0.4375, r.get("vllm_latency_p50_over").after(), 1e-3);
        assertEquals(0.4975, r.get("vllm_latency_p99_over").before(), 1e-3);
        assertEquals(4.925, r.get("vllm_latency_p99_over").after(), 1e-3);
        // 3 aborted a step on one replica for the 60 steps of the 15 minutes after; none before.
        assertEquals(0.0, r.get("vllm_failed_requests_over").before());
        assertEquals(180.0, r.get("vllm_failed_requests_over").after(), 180 * 0.02);
        assertNull(i.trainingSecondsLost(), "a serving workload loses no training time");
        assertTrue(i.summary().startsWith("serve latency p50 0.375 s → 0.438 s; serve latency p99 0.498 s → 4.93 s; serve requests failed 0 → 18"),
                i.summary());
        assertTrue(i.summary().endsWith("(15 min before vs after the fault)"), i.summary());
    }

    @Test
    void aStragglingRankCostsTheJobTrainingTimeAndTheWorkSinceItsCheckpointIsAtRisk() throws Exception {
        ServiceImpact i = impacts(prometheus.url()).measure(FAULT, List.of("ml"), Instant.now());

        ServiceImpact.Reading step = i.readings().stream().filter(x -> x.measure().equals("step-time")).findFirst().orElseThrow();
        assertEquals(1.0, step.before(), 1e-3);
        assertEquals(1.5, step.after(), 1e-3, "the slowest rank sets a synchronous job's pace");
        // 15 min at 1.5 s a step instead of 1 s: a third of the window's progress.
        assertEquals(300.0, i.trainingSecondsLost(), 1.0);
        assertEquals(720.0, i.workAtRiskSeconds(), 1.0, "the checkpoint was 12 minutes before the fault");
        assertTrue(i.summary().contains("training time lost ≈ 5 min"), i.summary());
    }

    @Test
    void aNamespaceWithoutServingOrTrainingSeriesIsNotMeasuredAndSaysSo() throws Exception {
        ServiceImpact i = impacts(prometheus.url()).measure(FAULT, List.of("batch"), Instant.now());
        assertEquals(ServiceImpact.Status.NOT_MEASURED, i.status());
        assertTrue(i.readings().isEmpty() && i.trainingSecondsLost() == null);
        assertTrue(i.reason().contains("none of the serving or training series") && i.reason().contains("batch"), i.reason());
    }

    @Test
    void beforeTheWindowAfterTheFaultHasPassedItIsPendingNotAHalfMeasure() throws Exception {
        Instant recent = Instant.now().minus(Duration.ofMinutes(3));
        ServiceImpact i = impacts(prometheus.url()).measure(recent, List.of("serve"), Instant.now());
        assertEquals(ServiceImpact.Status.PENDING, i.status());
        assertTrue(i.readings().isEmpty());
    }

    @Test
    void withoutPrometheusNothingIsMeasuredAndNoFigureIsGiven() throws Exception {
        ServiceImpacts none = new ServiceImpacts(Optional.empty(), Toolsets.load("tools"), Duration.ofMinutes(15));
        ServiceImpact i = none.measure(FAULT, List.of("serve"), Instant.now());
        assertEquals(ServiceImpact.Status.NOT_MEASURED, i.status());
        assertEquals("service impact not measured: Prometheus is not configured (ACCELTRIAGE_PROMETHEUS_URL)", i.summary());
    }

    @Test
    void aPrometheusThatDoesNotAnswerIsAReasonToTryAgainNotAResult() {
        int closed = ServerProcess.freePort();
        assertThrows(MetricsSource.EvidenceUnavailable.class, () -> impacts("http://127.0.0.1:" + closed).measure(FAULT, List.of("serve"),
                Instant.now()));
    }
}
