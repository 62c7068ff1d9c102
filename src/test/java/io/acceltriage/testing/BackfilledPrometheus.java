package io.acceltriage.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Prometheus (Debian's package) serving series of the past: the OpenMetrics text is turned into
 * TSDB blocks with {@code promtool tsdb create-blocks-from openmetrics} before Prometheus starts on
 * them, so a test can ask about a window around a fault an hour ago as it would in production.
 */
public final class BackfilledPrometheus implements AutoCloseable {

    private static final String PROMETHEUS = "/usr/bin/prometheus";
    private static final String PROMTOOL = "/usr/bin/promtool";

    private final ServerProcess process;
    private final String url;

    private BackfilledPrometheus(ServerProcess process, String url) {
        this.process = process;
        this.url = url;
    }

    /** Backfills {@code openMetrics} (ending in {@code # EOF}) and starts Prometheus on it; waits until {@code probe} has a value. */
    public static BackfilledPrometheus start(String openMetrics, String probe) throws IOException, InterruptedException {
        return start(openMetrics, probe, null);
    }

    /**
     * As {@link #start(String, String)}, and scraping {@code target} (host:port of an exporter a test serves)
     * every second, so the same Prometheus holds the past and what the test exposes now.
     */
    public static BackfilledPrometheus start(String openMetrics, String probe, String target) throws IOException, InterruptedException {
        ServerProcess.requireBinary(PROMETHEUS, "prometheus");
        ServerProcess.requireBinary(PROMTOOL, "prometheus");
        Path dir = ServerProcess.tempDir("acceltriage-backfill-");
        Path input = dir.resolve("series.om");
        Files.writeString(input, openMetrics);
        Path data = dir.resolve("data");
        Process backfill = new ProcessBuilder(PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", input.toString(), data.toString())
                .redirectErrorStream(true).start();
        String out = new String(backfill.getInputStream().readAllBytes());
        if (backfill.waitFor() != 0) fail("promtool could not backfill the series: " + out);
        Files.writeString(dir.resolve("prometheus.yml"), target == null ? "global:\n  scrape_interval: 15s\n" : """
                global:
                  scrape_interval: 1s
                scrape_configs:
                  - job_name: cluster
                    honor_labels: true
                    static_configs:
                      - targets: ['%s']
                """.formatted(target));
        int port = ServerProcess.freePort();
        String url = "http://127.0.0.1:" + port;
        ServerProcess p = ServerProcess.start("prometheus", dir, List.of(PROMETHEUS, "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + data, "--storage.tsdb.retention.time=30d", "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn"));
        BackfilledPrometheus prometheus = new BackfilledPrometheus(p, url);
        p.await("the backfilled series in Prometheus", Duration.ofSeconds(60), () -> {
            String r = ServerProcess.get(url + "/api/v1/query?query=count(" + java.net.URLEncoder.encode(probe, java.nio.charset.StandardCharsets.UTF_8)
                    + ")&time=" + (System.currentTimeMillis() / 1000 - 3600));
            return r != null && r.contains("\"value\"");
        });
        return prometheus;
    }

    /** Waits until {@code ready} holds, failing the test with what the process printed if it does not within {@code within}. */
    public void await(String what, Duration within, java.util.function.BooleanSupplier ready) {
        process.await(what, within, ready);
    }

    public String url() {
        return url;
    }

    @Override
    public void close() {
        process.close();
    }
}
