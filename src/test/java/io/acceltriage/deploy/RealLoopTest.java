package io.acceltriage.deploy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.testing.ServerProcess;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The whole loop with the real servers: the sandbox's simulated dcgm-exporters (served by this
 * service) → a real Prometheus scraping them every second with the rules of deploy/prometheus/ → a
 * real Alertmanager with deploy/alertmanager/alertmanager.test.yaml → the webhook → an incident of the
 * right family and the action policy allows → the fault cleared → Prometheus resolves the alert,
 * Alertmanager sends the resolved notification, and the incident is resolved.
 *
 * <p>The fault is injected into the simulated world only (no direct webhook delivery, unlike
 * POST /api/v1/sandbox/faults), so every alert acceltriage sees here came through Prometheus and
 * Alertmanager.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Admin.class)
class RealLoopTest {


    private static final String PROMETHEUS = "/usr/bin/prometheus";
    private static final String ALERTMANAGER = "/usr/bin/prometheus-alertmanager";
    private static final Path RULES = Path.of("deploy/prometheus/acceltriage-gpu.rules.yaml");
    private static final Path ALERTMANAGER_CONFIG = Path.of("deploy/alertmanager/alertmanager.test.yaml");
    /** The node under test (no other test uses it) and a healthy one scraped beside it. */
    private static final String NODE = "gpu-h100-10";
    private static final List<String> SCRAPED = List.of(NODE, "gpu-a100-10");
    private static final Duration BOUND = Duration.ofSeconds(45);

    private static ServerProcess prometheus;
    private static ServerProcess alertmanager;

    @Inject
    Sandbox sandbox;

    @AfterAll
    static void stopServers() {
        if (prometheus != null) prometheus.close();
        if (alertmanager != null) alertmanager.close();
    }

    @Test
    void anXid79GoesFromExporterThroughPrometheusAndAlertmanagerToACordonAndTheResolvedAlertClosesTheIncident() throws IOException {
        ServerProcess.requireBinary(PROMETHEUS, "prometheus");
        ServerProcess.requireBinary(ALERTMANAGER, "prometheus-alertmanager");
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        int self = RestAssured.port;
        long began = System.nanoTime();

        int amPort = ServerProcess.freePort();
        String am = "http://127.0.0.1:" + amPort;
        Path amDir = ServerProcess.tempDir("acceltriage-alertmanager-");
        Files.writeString(amDir.resolve("alertmanager.yml"), alertmanagerConfig(self));
        alertmanager = ServerProcess.start("alertmanager", amDir, List.of(ALERTMANAGER,
                "--config.file=" + amDir.resolve("alertmanager.yml"), "--storage.path=" + amDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + amPort, "--cluster.listen-address="));

        int promPort = ServerProcess.freePort();
        String prom = "http://127.0.0.1:" + promPort;
        Path promDir = ServerProcess.tempDir("acceltriage-prometheus-");
        Files.copy(RULES, promDir.resolve("rules.yaml"));
        Files.writeString(promDir.resolve("prometheus.yml"), prometheusConfig(self, amPort));
        prometheus = ServerProcess.start("prometheus", promDir, List.of(PROMETHEUS,
                "--config.file=" + promDir.resolve("prometheus.yml"), "--storage.tsdb.path=" + promDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + promPort));

        alertmanager.await("Alertmanager ready", BOUND, () -> ServerProcess.get(am + "/-/ready") != null);
        prometheus.await("the accelerator rules loaded", BOUND, () -> contains(ServerProcess.get(prom + "/api/v1/rules"), "GpuXidDeviceFault"));
        prometheus.await("Alertmanager discovered", BOUND,
                () -> contains(ServerProcess.get(prom + "/api/v1/alertmanagers"), "127.0.0.1:" + amPort));
        // changes() needs a healthy reading before the fault: wait until the healthy XID gauge of the node is stored.
        prometheus.await("a scrape of " + NODE + "'s exporter", BOUND, () -> contains(
                ServerProcess.get(prom + "/api/v1/query?query=DCGM_FI_DEV_XID_ERRORS%7BHostname%3D%22" + NODE + "%22%2Cgpu%3D%222%22%7D"),
                "\"0\"]"));

        phase("servers up, first scrape stored; fault injected", began);
        sandbox.inject(Fault.xid(NODE, 2, 79));

        // Under load a scrape can miss and the alert flap (resolve, fire again); every incident of the node counts.
        JsonPath incident = await("an incident of " + NODE + " whose cordon-node succeeded", () -> {
            for (String id : incidentIds()) {
                JsonPath i = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
                if (i.getList("actions.findAll { it.kind == 'cordon-node' && it.target == '" + NODE + "' }.status")
                        .contains("SUCCEEDED")) {
                    return i;
                }
            }
            return null;
        });
        assertEquals("node:" + NODE, incident.getString("subject"));
        assertEquals("device", incident.getString("family"), incident.getString("summary"));
        Map<String, String> labels = incident.getMap("alerts[0].alert.labels");
        assertEquals("GpuXidDeviceFault", labels.get("alertname"), "the alert came from the rules: " + labels);
        assertEquals("79", labels.get("xid"), "labels: " + labels);
        assertEquals("critical", labels.get("severity"), "labels: " + labels);
        assertTrue(incident.getString("alerts[0].alert.generatorUrl").contains("/graph?g0.expr="),
                "Prometheus made the alert: " + incident.getString("alerts[0].alert.generatorUrl"));
        given().get("/api/v1/sandbox/nodes").then().body("find { it.name == '" + NODE + "' }.cordoned", equalTo(true));

        phase("cordon done", began);
        // Clear the fault: the XID gauge reads 0 again, the rule stops matching, and the resolution travels back.
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        String id = incident.getString("id");
        JsonPath resolved = await("every incident of " + NODE + " resolved by Alertmanager's resolved notification", () -> {
            List<String> open = given().queryParam("node", NODE).get("/api/v1/incidents").then().statusCode(200).extract()
                    .jsonPath().getList("items.findAll { it.state != 'resolved' }.id");
            JsonPath i = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
            return open.isEmpty() && "resolved".equals(i.getString("state")) ? i : null;
        });
        phase("incident resolved", began);
        List<String> statuses = resolved.getList("alerts.alert.status");
        assertEquals("RESOLVED", statuses.get(statuses.size() - 1), "the last alert is the resolution: " + statuses);
        assertTrue(resolved.getList("timeline.kind").contains("incident.resolved"), "timeline: " + resolved.getList("timeline.kind"));
    }

    /** Where the time goes, for when CI is slow. */
    private static void phase(String what, long began) {
        System.out.printf("RealLoopTest: %s after %d ms%n", what, (System.nanoTime() - began) / 1_000_000);
    }

    private static List<String> incidentIds() {
        return given().queryParam("node", NODE).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath().getList("items.id");
    }

    /** The test copy of the Alertmanager config, pointed at this service; fails if the file no longer has what is replaced. */
    private static String alertmanagerConfig(int port) throws IOException {
        String config = Files.readString(ALERTMANAGER_CONFIG);
        config = replace(config, "127.0.0.1:8080", "127.0.0.1:" + port);
        config = replace(config, "credentials: acceltriage-test-token", "credentials: test-token");
        // Notify within a second instead of after 10 s, and send the resolution at once.
        config = replaceAll(config, "group_wait: \\S+", "group_wait: 1s");
        config = replaceAll(config, "group_interval: \\S+", "group_interval: 1s");
        return config;
    }

    private static String prometheusConfig(int self, int amPort) {
        StringBuilder targets = new StringBuilder();
        for (String node : SCRAPED) {
            targets.append("      - targets: ['127.0.0.1:").append(self).append("']\n")
                    .append("        labels: {__tmp_node: ").append(node).append("}\n");
        }
        return """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: [rules.yaml]
                alerting:
                  alertmanagers:
                    - static_configs:
                        - targets: ['127.0.0.1:%d']
                scrape_configs:
                  # One simulated dcgm-exporter per node, all served by acceltriage: the path names the node.
                  - job_name: dcgm-exporter
                    honor_labels: true
                    static_configs:
                %s    relabel_configs:
                      - source_labels: [__tmp_node]
                        target_label: __metrics_path__
                        replacement: /sandbox/exporter/$1/metrics
                      - source_labels: [__tmp_node]
                        target_label: instance
                """.formatted(amPort, targets);
    }

    private <T> T await(String what, Supplier<T> probe) {
        Instant deadline = Instant.now().plus(BOUND);
        while (Instant.now().isBefore(deadline)) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            ServerProcess.sleep(250);
        }
        String am = alertmanager == null ? "" : alertmanager.log();
        String prom = prometheus == null ? "" : prometheus.log();
        StringBuilder incidents = new StringBuilder();
        for (String id : incidentIds()) {
            JsonPath i = given().get("/api/v1/incidents/" + id).then().extract().jsonPath();
            incidents.append(id).append(' ').append(i.getString("state")).append(": ").append(i.getString("summary"))
                    .append("\n  gaps: ").append(i.getList("assessment.evidence.gaps")).append("\n  alerts: ")
                    .append(i.getList("alerts.alert.status")).append('\n');
        }
        fail("no " + what + " within " + BOUND.toSeconds() + " s\nincidents of " + NODE + ":\n" + incidents + prom + "\n" + am);
        return null;
    }

    private static boolean contains(String body, String text) {
        return body != null && body.contains(text);
    }

    private static String replace(String text, String from, String to) {
        if (!text.contains(from)) {
            fail(ALERTMANAGER_CONFIG + " no longer contains \"" + from + "\"; update RealLoopTest");
        }
        return text.replace(from, to);
    }

    private static String replaceAll(String text, String regex, String to) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            fail(ALERTMANAGER_CONFIG + " no longer matches /" + regex + "/; update RealLoopTest");
        }
        return m.replaceAll(to);
    }
}
