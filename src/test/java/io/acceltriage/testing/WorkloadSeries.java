package io.acceltriage.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The series a vLLM deployment and a training job publish, around a fault, as OpenMetrics text for
 * {@link BackfilledPrometheus}: every 15 s from 30 min before the fault to 30 min after.
 *
 * <p>Serving ({@code vllm:*}, namespace {@code servingNamespace}): three replicas, each 10 requests a
 * step, all in the (0.25 s, 0.5 s] latency bucket; after the fault the replica {@code slowPod} answers
 * in (2.5 s, 5 s] and aborts 3 requests a step. Training ({@code training_*}, namespace
 * {@code trainingNamespace}): four ranks at 1 s a step; after the fault {@code slowRank} takes 1.5 s a
 * step; the last checkpoint was 12 minutes before the fault.
 */
public final class WorkloadSeries {

    public static final Duration STEP = Duration.ofSeconds(15);
    public static final Duration SPAN = Duration.ofMinutes(30);
    static final double[] BUCKETS = {0.25, 0.5, 1, 2.5, 5, 10};

    private WorkloadSeries() {}

    public static String around(Instant faultAt, String servingNamespace, List<String> replicas, String slowPod,
            String trainingNamespace, List<String> ranks, String slowRank) {
        java.util.List<String> s = new java.util.ArrayList<>();
        Instant from = faultAt.minus(SPAN);
        int steps = (int) (SPAN.multipliedBy(2).toSeconds() / STEP.toSeconds());
        for (String pod : replicas) {
            long[] buckets = new long[BUCKETS.length + 1];
            double sum = 0;
            long aborted = 0;
            for (int k = 0; k <= steps; k++) {
                Instant t = from.plus(STEP.multipliedBy(k));
                boolean slow = pod.equals(slowPod) && t.isAfter(faultAt);
                if (k > 0) {
                    // 10 requests this step, in (0.25, 0.5] or, slowed, in (2.5, 5]; cumulative buckets.
                    int first = slow ? 4 : 1;
                    for (int b = first; b < buckets.length; b++) buckets[b] += 10;
                    sum += slow ? 10 * 4.0 : 10 * 0.4;
                    if (slow) aborted += 3;
                }
                String labels = "namespace=\"" + servingNamespace + "\",pod=\"" + pod + "\"";
                for (int b = 0; b < BUCKETS.length; b++) {
                    s.add(line("vllm:e2e_request_latency_seconds_bucket", labels + ",le=\"" + le(BUCKETS[b]) + "\"", buckets[b], t));
                }
                s.add(line("vllm:e2e_request_latency_seconds_bucket", labels + ",le=\"+Inf\"", buckets[BUCKETS.length], t));
                s.add(line("vllm:e2e_request_latency_seconds_count", labels, buckets[BUCKETS.length], t));
                s.add(line("vllm:e2e_request_latency_seconds_sum", labels, sum, t));
                s.add(line("vllm:request_success_total", labels + ",finished_reason=\"abort\"", aborted, t));
                s.add(line("vllm:request_success_total", labels + ",finished_reason=\"stop\"", buckets[BUCKETS.length] - aborted, t));
            }
        }
        for (String rank : ranks) {
            double sum = 0;
            double count = 0;
            for (int k = 0; k <= steps; k++) {
                Instant t = from.plus(STEP.multipliedBy(k));
                if (k > 0) {
                    boolean slow = rank.equals(slowRank) && t.isAfter(faultAt);
                    count += slow ? 10 : 15;
                    sum += 15;
                }
                String labels = "namespace=\"" + trainingNamespace + "\",pod=\"" + rank + "\"";
                s.add(line("training_step_duration_seconds_sum", labels, sum, t));
                s.add(line("training_step_duration_seconds_count", labels, count, t));
                s.add(line("training_last_checkpoint_timestamp_seconds", labels, faultAt.minus(Duration.ofMinutes(12)).getEpochSecond(), t));
            }
        }
        // OpenMetrics wants each metric's samples together; the sort is stable, so each series stays in time order.
        s.sort(java.util.Comparator.comparing(l -> l.substring(0, l.indexOf('{'))));
        return String.join("", s) + "# EOF\n";
    }

    private static String le(double b) {
        return b == Math.rint(b) ? String.format(Locale.ROOT, "%.1f", b) : String.valueOf(b);
    }

    private static String line(String name, String labels, double value, Instant t) {
        return name + "{" + labels + "} " + (value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value)) + " "
                + t.getEpochSecond() + "\n";
    }
}
