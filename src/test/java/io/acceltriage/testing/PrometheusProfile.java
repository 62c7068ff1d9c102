package io.acceltriage.testing;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The one test profile whose service reads metrics through a real Prometheus
 * (ACCELTRIAGE_METRICS_SOURCE=prometheus, history 3 s): Prometheus holds an hour of the past around
 * {@link #FAULT} (backfilled with promtool: the sandbox's vLLM deployment and training job as
 * {@link WorkloadSeries} writes them, and the device series {@link #DEVICE_NODE} GPU {@link #DEVICE_GPU}
 * reported around the fault) and scrapes, every second, an exporter whose text each test sets under its
 * own name ({@link #expose}). Started once for the profile's one start of the service.
 */
public class PrometheusProfile implements QuarkusTestProfile {

    /** When the past's fault began: 45 minutes before the run, so 30 minutes either side are both in the past. */
    public static final Instant FAULT = Instant.now().minus(Duration.ofMinutes(45)).truncatedTo(ChronoUnit.MINUTES);

    /** The serving deployment's replicas in the sandbox (serve/vllm-llama); the second slowed after the fault. */
    public static final List<String> REPLICAS = List.of("vllm-llama-7d9f5c6b8-a", "vllm-llama-7d9f5c6b8-b", "vllm-llama-7d9f5c6b8-c");

    /** The node and GPU whose XID gauge went from 0 to {@link #DEVICE_XID} at the fault (no other test faults it). */
    public static final String DEVICE_NODE = "gpu-a100-07";
    public static final String DEVICE_GPU = "6";
    public static final int DEVICE_XID = 79;

    private static final Map<String, String> EXPOSED = new ConcurrentSkipListMap<>();
    private static BackfilledPrometheus prometheus;

    /** Serves {@code text} (Prometheus' text format) under {@code part} from the scraped exporter, beside the other tests' parts. */
    public static void expose(String part, String text) {
        EXPOSED.put(part, text.endsWith("\n") ? text : text + "\n");
    }

    public static BackfilledPrometheus prometheus() {
        return prometheus;
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        try {
            if (prometheus == null) {
                HttpServer exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
                exporter.createContext("/metrics", exchange -> {
                    byte[] body = String.join("", EXPOSED.values()).getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
                exporter.start();
                String workloads = WorkloadSeries.around(FAULT, "serve", REPLICAS, REPLICAS.get(1), "ml", List.of("llama-pretrain-0"), "none");
                String past = workloads.substring(0, workloads.lastIndexOf("# EOF")) + deviceAroundTheFault() + "# EOF\n";
                prometheus = BackfilledPrometheus.start(past, "vllm:e2e_request_latency_seconds_count",
                        "127.0.0.1:" + exporter.getAddress().getPort());
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    prometheus.close();
                    exporter.stop(0);
                }));
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return Map.of("acceltriage.metrics.source", "prometheus", "acceltriage.prometheus.url", prometheus.url(),
                "acceltriage.prometheus.history", "3s", "acceltriage.impact.window", "15m");
    }

    /** dcgm-exporter's XID gauge of the device, every 15 s from 30 min before the fault to 30 min after: 0, then the XID. */
    private static String deviceAroundTheFault() {
        List<String> lines = new ArrayList<>();
        Instant from = FAULT.minus(WorkloadSeries.SPAN);
        int steps = (int) (WorkloadSeries.SPAN.multipliedBy(2).toSeconds() / WorkloadSeries.STEP.toSeconds());
        for (int k = 0; k <= steps; k++) {
            Instant t = from.plus(WorkloadSeries.STEP.multipliedBy(k));
            lines.add("DCGM_FI_DEV_XID_ERRORS{" + deviceLabels() + "} " + (t.isAfter(FAULT) ? DEVICE_XID : 0) + " " + t.getEpochSecond() + "\n");
        }
        return String.join("", lines);
    }

    /** The labels dcgm-exporter gives the device's series. */
    public static String deviceLabels() {
        return "Hostname=\"" + DEVICE_NODE + "\",gpu=\"" + DEVICE_GPU + "\",UUID=\"GPU-" + DEVICE_NODE + "-" + DEVICE_GPU + "\"";
    }
}
