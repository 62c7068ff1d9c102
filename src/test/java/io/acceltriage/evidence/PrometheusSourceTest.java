package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.acceltriage.testing.ServerProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PrometheusSource against a real Prometheus (Debian's package) that scrapes an exporter of this test
 * serving dcgm-exporter's text format, every second. The history window is shortened to 3 s so a
 * change made during the test is seen the way a ten-minute window sees it in production.
 */
class PrometheusSourceTest {

    private static final String PROMETHEUS = "/usr/bin/prometheus";
    private static final Duration HISTORY = Duration.ofSeconds(3);

    /** What GPU 1 of gpu-h100-01 reports as its last XID; the test changes it. */
    private static final AtomicInteger xid = new AtomicInteger(0);
    private static HttpServer exporter;
    private static ServerProcess prometheus;
    private static String url;

    @BeforeAll
    static void startPrometheusScrapingAnExporter() throws IOException {
        ServerProcess.requireBinary(PROMETHEUS, "prometheus");
        exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        exporter.createContext("/metrics", exchange -> {
            byte[] body = exporterText(xid.get()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        exporter.start();

        Path dir = ServerProcess.tempDir("acceltriage-prometheus-");
        int port = ServerProcess.freePort();
        url = "http://127.0.0.1:" + port;
        Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: dcgm-exporter
                    honor_labels: true
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(exporter.getAddress().getPort()));
        prometheus = ServerProcess.start("prometheus", dir, List.of(PROMETHEUS, "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"));
        // History needs samples older than the window: wait for the first scrape, then for the window to fill.
        prometheus.await("first scrape of the exporter", Duration.ofSeconds(30), () -> {
            String r = ServerProcess.get(url + "/api/v1/query?query=" + "count(DCGM_FI_DEV_XID_ERRORS)");
            return r != null && r.contains("\"value\"");
        });
        ServerProcess.sleep(HISTORY.toMillis() + 1500);
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) prometheus.close();
        if (exporter != null) exporter.stop(0);
    }

    private PrometheusSource source() {
        return new PrometheusSource(URI.create(url), Duration.ofSeconds(5), HISTORY);
    }

    @Test
    void readsEveryDeviceSeriesOfTheNodeByHostnameOrNodeLabelWithValuesParsedFromStrings() throws Exception {
        NodeSamples samples = source().read("gpu-h100-01");

        List<Sample> xids = samples.now().stream().filter(s -> s.name().equals("DCGM_FI_DEV_XID_ERRORS")).toList();
        assertEquals(2, xids.size(), "one XID gauge per GPU of gpu-h100-01: " + samples.now());
        Sample gpu1 = xids.stream().filter(s -> "1".equals(s.device())).findFirst().orElseThrow();
        assertEquals("GPU-8e5a3d4c-2f71-4b1a-9c63-000000000001", gpu1.label("UUID"));
        assertEquals("dcgm-exporter", gpu1.label("job"), "Prometheus' target labels come along");
        assertTrue(samples.now().stream().anyMatch(s -> s.name().equals("DCGM_FI_DEV_FB_USED") && s.value() == 40960.0
                && "llm-pretrain-worker-0".equals(s.label("pod"))), "the workload labels (honor_labels): " + samples.now());
        assertTrue(samples.now().stream().anyMatch(s -> s.name().equals("kube_node_status_allocatable") && s.value() == 7.0),
                "series naming the node with a node label: " + samples.now());
        assertTrue(samples.now().stream().noneMatch(s -> "gpu-h100-02".equals(s.label("Hostname"))),
                "another node's GPUs are not this node's: " + samples.now());
        assertTrue(samples.tenMinutesAgo().size() >= samples.now().size(), "history: " + samples.tenMinutesAgo());
    }

    @Test
    void aToolOfToolsRunsAsItsTypedTemplateAndAnArgumentOutsideItsSchemaIsRefusedBeforeAnythingIsSent() throws Exception {
        Toolsets toolsets = Toolsets.load("tools");
        Toolset.Tool xids = toolsets.all().stream().flatMap(t -> t.tools().stream()).filter(t -> t.name().equals("gpu_xid_errors"))
                .findFirst().orElseThrow();
        PrometheusSource.ToolReading r = source().run(xids, java.util.Map.of("node", "gpu-h100-01"));
        assertEquals("DCGM_FI_DEV_XID_ERRORS{Hostname=\"gpu-h100-01\"}", r.query());
        assertEquals(2, r.series(), r.toString());
        assertTrue(r.samples().stream().allMatch(x -> "gpu-h100-01".equals(x.label("Hostname"))), r.toString());

        Toolset.Tool vllm = toolsets.all().stream().flatMap(t -> t.tools().stream()).filter(t -> t.name().equals("vllm_requests_waiting"))
                .findFirst().orElseThrow();
        assertEquals(12.0, source().run(vllm, java.util.Map.of("namespace", "serve")).samples().get(0).value());

        // A quote would end the label matcher and let a caller append its own PromQL; a name not declared would be ignored silently.
        for (java.util.Map<String, String> bad : List.of(java.util.Map.of("node", "gpu-h100-01\"} or vector(1) #"),
                java.util.Map.of("node", "gpu-h100-01", "query", "up"), java.util.Map.<String, String>of(), java.util.Map.of("node", ""))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> source().run(xids, bad), bad.toString());
            assertTrue(refused.getMessage().contains("gpu_xid_errors"), refused.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> source().run(vllm, java.util.Map.of("namespace", "Serve_Not_A_Namespace")));
    }

    @Test
    void aNewXidIsSeenAgainstTheValueOneHistoryWindowAgo() throws Exception {
        xid.set(79);
        try {
            prometheus.await("the new XID in Prometheus", Duration.ofSeconds(10), () -> {
                String r = ServerProcess.get(url + "/api/v1/query?query=DCGM_FI_DEV_XID_ERRORS%3D%3D79");
                return r != null && r.contains("\"79\"");
            });
            NodeSamples samples = source().read("gpu-h100-01");

            assertEquals(79.0, xidOfGpu1(samples.now()).orElseThrow());
            assertEquals(0.0, xidOfGpu1(samples.tenMinutesAgo()).orElseThrow(), "before the change: " + samples.tenMinutesAgo());

            // The collector turns the pair into a reading with its earlier value, as with a direct scrape.
            MetricsCollector.Result result = new MetricsCollector(n -> samples, Toolsets.load("tools")).collect("gpu-h100-01");
            assertTrue(result.observations().stream().anyMatch(o -> o.summary().contains("DCGM_FI_DEV_XID_ERRORS = 79 (10 min ago 0)")),
                    "observations: " + result.observations());
        } finally {
            xid.set(0);
        }
    }

    @Test
    void aServingReplicasOwnSeriesBecomesTenantEvidenceThatMayNotFence() throws Exception {
        NodeSamples samples = source().read("gpu-h100-01");
        MetricsCollector.Result result = new MetricsCollector(n -> samples, Toolsets.load("tools")).collect("gpu-h100-01");
        Observation queue = result.observations().stream().filter(o -> o.fact() instanceof Facts.MetricReading m
                && m.metric().equals("vllm:num_requests_waiting")).findFirst().orElseThrow(() -> new AssertionError(
                "the serving toolset's gauge is evidence: " + result.observations()));
        assertEquals(Trust.TENANT, queue.trust(), "the replica serves it: " + queue);
        assertEquals("llm-serve-1", ((Facts.MetricReading) queue.fact()).pod());
        Observation xidReading = result.observations().stream().filter(o -> o.summary().contains("DCGM_FI_DEV_XID_ERRORS")).findFirst()
                .orElse(null);
        assertTrue(xidReading == null || xidReading.trust() == null, "device readings keep the trust of their kind: " + xidReading);
    }

    @Test
    void aNodeUnknownToPrometheusHasNoSamplesRatherThanAnError() throws Exception {
        NodeSamples samples = source().read("gpu-a100-09");
        assertTrue(samples.now().isEmpty() && samples.tenMinutesAgo().isEmpty(), samples.toString());
    }

    @Test
    void aQueryPrometheusRejectsBecomesEvidenceUnavailableWithItsErrorTypeAndReason() {
        MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                () -> source().query("rate(DCGM_FI_DEV_XID_ERRORS[", "gpu-h100-01"));
        assertTrue(e.getMessage().startsWith("Prometheus refused the query for node gpu-h100-01: HTTP 400 bad_data: "), e.getMessage());
        assertTrue(e.getMessage().contains("parse error"), e.getMessage());
    }

    @Test
    void aResultThatIsNotAVectorIsRefused() {
        MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                () -> source().query("scalar(count(DCGM_FI_DEV_XID_ERRORS))", "gpu-h100-01"));
        assertTrue(e.getMessage().contains("a scalar result where an instant vector was expected"), e.getMessage());
    }

    @Test
    void aRangeQueryIsEachSeriesPointsInTimeOrderAndABadWindowOrMetricIsRefusedBeforeAsking() throws Exception {
        java.time.Instant to = java.time.Instant.now();
        List<PrometheusSource.Series> series = source().history("gpu-h100-01", "DCGM_FI_DEV_FB_USED", to.minusSeconds(3), to,
                Duration.ofSeconds(1));
        assertEquals(1, series.size(), series.toString());
        PrometheusSource.Series s = series.get(0);
        assertEquals("DCGM_FI_DEV_FB_USED", s.name());
        assertEquals("0", s.device(), "the GPU as a sample names it");
        assertTrue(s.points().size() >= 3, "a point a second: " + s.points());
        for (int i = 1; i < s.points().size(); i++) {
            assertTrue(s.points().get(i).at().isAfter(s.points().get(i - 1).at()), "in time order: " + s.points());
        }
        assertTrue(s.points().stream().allMatch(p -> p.value() == 40960.0), s.points().toString());
        assertThrows(IllegalArgumentException.class, () -> source().queryRange("up", to, to.minusSeconds(1), Duration.ofSeconds(1), "up"));
        assertThrows(IllegalArgumentException.class,
                () -> source().queryRange("up", to.minusSeconds(86_400), to, Duration.ofSeconds(1), "up"), "more than 1,000 points");
        assertThrows(IllegalArgumentException.class,
                () -> source().history("gpu-h100-01", "DCGM{x=\"1\"} or up", to.minusSeconds(3), to, Duration.ofSeconds(1)),
                "a metric name only: nothing else reaches the query");
        MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                () -> source().queryRange("rate(up[", to.minusSeconds(3), to, Duration.ofSeconds(1), "up of the exporter"));
        assertTrue(e.getMessage().startsWith("Prometheus refused the query for up of the exporter: HTTP 400 bad_data: "), e.getMessage());
    }

    @Test
    void anUnreachablePrometheusNamesTheUrlToCheck() {
        int closed = ServerProcess.freePort();
        MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                () -> new PrometheusSource(URI.create("http://127.0.0.1:" + closed), Duration.ofSeconds(2), HISTORY).read("gpu-h100-01"));
        assertTrue(e.getMessage().startsWith("Prometheus unreachable at http://127.0.0.1:" + closed + "/"), e.getMessage());
        assertTrue(e.getMessage().endsWith("check ACCELTRIAGE_PROMETHEUS_URL"), e.getMessage());
    }

    @Test
    void aPrometheusThatDoesNotAnswerInTimeIsAGapNotAHang() throws Exception {
        // A listening socket nobody serves: the connection opens, the answer never comes.
        try (ServerSocket silent = new ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            long began = System.nanoTime();
            MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                    () -> new PrometheusSource(URI.create("http://127.0.0.1:" + silent.getLocalPort()), Duration.ofMillis(400), HISTORY)
                            .read("gpu-h100-01"));
            assertTrue(e.getMessage().contains("did not answer within 400 ms"), e.getMessage());
            assertTrue(System.nanoTime() - began < Duration.ofSeconds(3).toNanos(), "bounded by the timeout");
        }
    }

    @Test
    void somethingThatIsNotPrometheusIsNamedAsSuch() {
        String exporterUrl = "http://127.0.0.1:" + exporter.getAddress().getPort();
        exporter.createContext("/api/v1/query", exchange -> {
            byte[] body = "<html>sign in</html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        try {
            MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                    () -> new PrometheusSource(URI.create(exporterUrl), Duration.ofSeconds(2), HISTORY).read("gpu-h100-01"));
            assertTrue(e.getMessage().contains("answered HTTP 200 without its JSON envelope (a proxy or the wrong URL?): <html>sign in</html>"),
                    e.getMessage());
        } finally {
            exporter.removeContext("/api/v1/query");
        }
    }

    @Test
    void aNameThatCannotBeANodeNeverReachesPromql() {
        MetricsSource.EvidenceUnavailable e = assertThrows(MetricsSource.EvidenceUnavailable.class,
                () -> source().read("x\"} or vector(1) or {a=\""));
        assertTrue(e.getMessage().contains("not a Kubernetes node name"), e.getMessage());
    }

    @Test
    void aMissingOrMalformedUrlFailsTheStartNamingTheKey() {
        IllegalStateException missing = assertThrows(IllegalStateException.class, () -> PrometheusSource.from(config(null)));
        assertTrue(missing.getMessage().contains("needs ACCELTRIAGE_PROMETHEUS_URL"), missing.getMessage());
        IllegalStateException bad = assertThrows(IllegalStateException.class, () -> PrometheusSource.from(config("prometheus:9090")));
        assertTrue(bad.getMessage().contains("must be an http(s) URL") && bad.getMessage().contains("got \"prometheus:9090\""),
                bad.getMessage());
    }

    private static PrometheusConfig config(String url) {
        return new PrometheusConfig() {
            public Optional<String> url() { return Optional.ofNullable(url); }
            public Duration timeout() { return Duration.ofSeconds(1); }
            public Duration history() { return HISTORY; }
        };
    }

    private static Optional<Double> xidOfGpu1(List<Sample> samples) {
        return samples.stream().filter(s -> s.name().equals("DCGM_FI_DEV_XID_ERRORS") && "1".equals(s.device()))
                .map(Sample::value).findFirst();
    }

    /** dcgm-exporter's page for two nodes (as two exporters would serve them), plus a kube-state-metrics series. */
    private static String exporterText(int xidOfGpu1) {
        StringBuilder b = new StringBuilder();
        b.append("# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n");
        for (String node : List.of("gpu-h100-01", "gpu-h100-02")) {
            for (int gpu = 0; gpu < 2; gpu++) {
                int value = node.equals("gpu-h100-01") && gpu == 1 ? xidOfGpu1 : 0;
                b.append("DCGM_FI_DEV_XID_ERRORS").append(labels(node, gpu, "")).append(' ').append(value).append('\n');
            }
        }
        b.append("# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n# TYPE DCGM_FI_DEV_FB_USED gauge\n");
        b.append("DCGM_FI_DEV_FB_USED").append(labels("gpu-h100-01", 0,
                ",container=\"trainer\",namespace=\"ml\",pod=\"llm-pretrain-worker-0\"")).append(" 40960\n");
        b.append("# HELP kube_node_status_allocatable The allocatable for different resources of a node.\n")
                .append("# TYPE kube_node_status_allocatable gauge\n")
                .append("kube_node_status_allocatable{node=\"gpu-h100-01\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 7\n");
        // A vLLM replica's own queue, relabelled with its node by the PodMonitor: the tenant's series.
        b.append("# TYPE vllm:num_requests_waiting gauge\n")
                .append("vllm:num_requests_waiting{model_name=\"llama-3-70b\",namespace=\"serve\",pod=\"llm-serve-1\",node=\"gpu-h100-01\"} 12\n");
        return b.toString();
    }

    private static String labels(String node, int gpu, String extra) {
        String suffix = node.equals("gpu-h100-01") ? "00000000000" + gpu : "10000000000" + gpu;
        return "{gpu=\"" + gpu + "\",UUID=\"GPU-8e5a3d4c-2f71-4b1a-9c63-" + suffix + "\",pci_bus_id=\"00000000:1" + gpu
                + ":00.0\",device=\"nvidia" + gpu + "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"" + node
                + "\",DCGM_FI_DRIVER_VERSION=\"550.90.07\"" + extra + "}";
    }
}
