package io.acceltriage.bench;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The alert-storm ingest benchmark (not a timed test: it asserts nothing about speed). 5,000 alerts
 * over 500 nodes in Alertmanager-sized batches against POST /api/v1/alerts, and the same number of
 * requests against the service's own no-op health endpoint in the same run, so the figure that
 * matters is the ratio, which a noisy shared machine does not distort as much as absolute times.
 * Run: ./mvnw -B test -Dtest=IngestBenchmark -Dsurefire.excludedGroups= ; figures in target/benchmarks/ingest.txt.
 */
@QuarkusTest
@Tag("benchmark")
class IngestBenchmark {

    static final int ALERTS = 5_000;
    static final int NODES = 500;
    static final int BATCH = 25;
    static final int SENDERS = 4;

    @TestHTTPResource("/api/v1/alerts")
    URI alerts;

    @TestHTTPResource("/q/health/live")
    URI health;

    final HttpClient http = HttpClient.newHttpClient();

    record Run(List<Long> latenciesNanos, long wallNanos, int requests) {
        double percentileMillis(double p) {
            List<Long> sorted = new ArrayList<>(latenciesNanos);
            Collections.sort(sorted);
            return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1)) / 1e6;
        }
    }

    @Test
    void alertStorm() throws Exception {
        long rssAtRest = rssKiB();
        run(batches(500, "warmup"), alerts);
        run(Collections.nCopies(100, null), health);
        AtomicLong peak = new AtomicLong(rssAtRest);
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(rssKiB(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.start();
        List<byte[]> storm = batches(ALERTS, "storm");
        Run ingest = run(storm, alerts);
        sampler.interrupt();
        List<byte[]> noBodies = new ArrayList<>();
        for (int i = 0; i < storm.size(); i++) noBodies.add(null);
        Run baseline = run(noBodies, health);

        double alertsPerSecond = ALERTS / (ingest.wallNanos() / 1e9);
        String report = String.format(Locale.ROOT, String.join("\n",
                "acceltriage ingest benchmark (%d alerts over %d nodes, batches of %d, %d concurrent senders, %d cores)",
                "ingest:   %.0f alerts/s sustained; ack latency p50 %.1f ms, p99 %.1f ms (%d requests)",
                "baseline: GET /q/health/live p50 %.1f ms, p99 %.1f ms",
                "ratio:    ingest ack p50 = %.1f x health p50; p99 = %.1f x",
                "memory:   resident %d MiB at rest, %d MiB at the storm's peak (test JVM, includes the test harness)", ""),
                ALERTS, NODES, BATCH, SENDERS, Runtime.getRuntime().availableProcessors(),
                alertsPerSecond, ingest.percentileMillis(0.5), ingest.percentileMillis(0.99), ingest.requests(),
                baseline.percentileMillis(0.5), baseline.percentileMillis(0.99),
                ingest.percentileMillis(0.5) / baseline.percentileMillis(0.5), ingest.percentileMillis(0.99) / baseline.percentileMillis(0.99),
                rssAtRest / 1024, peak.get() / 1024);
        System.out.println(report);
        Path out = Path.of("target/benchmarks/ingest.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, report);
    }

    private Run run(List<byte[]> bodies, URI target) throws Exception {
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (byte[] body : bodies) {
            futures.add(senders.submit(() -> {
                HttpRequest.Builder r = HttpRequest.newBuilder(target);
                if (body == null) {
                    r.GET();
                } else {
                    r.header("Authorization", "Bearer test-token").header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
                }
                long t0 = System.nanoTime();
                HttpResponse<String> response = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
                latencies.add(System.nanoTime() - t0);
                if (response.statusCode() != 200) {
                    throw new IllegalStateException(target + " answered " + response.statusCode() + ": " + response.body());
                }
                return null;
            }));
        }
        for (Future<?> f : futures) f.get();
        long wall = System.nanoTime() - start;
        senders.shutdown();
        return new Run(latencies, wall, bodies.size());
    }

    /** Alertmanager-shaped deliveries: one group per node and alert name, a few alerts each. */
    static List<byte[]> batches(int alerts, String run) {
        List<byte[]> out = new ArrayList<>();
        StringBuilder sb = null;
        int inBatch = 0;
        for (int i = 0; i < alerts; i++) {
            if (inBatch == 0) {
                sb = new StringBuilder("{\"version\":\"4\",\"groupKey\":\"{}:{bench=\\\"" + run + "-" + i
                        + "\\\"}\",\"status\":\"firing\",\"receiver\":\"acceltriage\",\"alerts\":[");
            } else {
                sb.append(',');
            }
            String node = String.format("bench-node-%03d", i % NODES);
            sb.append("{\"status\":\"firing\",\"labels\":{\"alertname\":\"GpuXidDeviceFault\",\"node\":\"").append(node)
                    .append("\",\"gpu\":\"").append(i % 8).append("\",\"xid\":\"79\",\"run\":\"").append(run)
                    .append("\"},\"annotations\":{\"summary\":\"bench\"},\"startsAt\":\"2026-11-30T10:00:00Z\",")
                    .append("\"endsAt\":\"0001-01-01T00:00:00Z\",\"fingerprint\":\"").append(String.format("%016x", (run.hashCode() * 31L + i)))
                    .append("\"}");
            if (++inBatch == BATCH || i == alerts - 1) {
                sb.append("]}");
                out.add(sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                inBatch = 0;
            }
        }
        return out;
    }

    static long rssKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            // not Linux: report zero rather than fail a benchmark
        }
        return 0;
    }
}
