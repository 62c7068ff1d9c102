package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.acceltriage.testing.PrometheusProfile;
import io.acceltriage.testing.ServerProcess;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The incident page's sparklines drawn from Prometheus' memory of the device (the shared
 * {@link PrometheusProfile}: ACCELTRIAGE_METRICS_SOURCE=prometheus): an XID 79 alert whose fault began
 * 45 minutes ago, on a GPU whose XID gauge Prometheus holds from 30 minutes before the fault (0) to 30
 * minutes after (79). The sparkline is the range query's line, flat before the dashed mark and up after
 * it, not the two values triage stored; read in a real headless Chromium, the screenshot kept in
 * docs/screenshots/.
 */
@QuarkusTest
@TestProfile(PrometheusProfile.class)
class DeviceHistoryBrowserTest {

    static final String NODE = PrometheusProfile.DEVICE_NODE;
    static final String GPU = PrometheusProfile.DEVICE_GPU;

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @TestHTTPResource("/")
    URL root;

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void theSparklineIsTheDevicesSeriesFromHalfAnHourBeforeTheFaultToHalfAnHourAfterWithTheFaultMarked() throws Exception {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, NODE);
        // What dcgm-exporter reports now, as triage reads it through Prometheus.
        PrometheusProfile.expose("device-history", "DCGM_FI_DEV_XID_ERRORS{" + PrometheusProfile.deviceLabels() + "} 79\n");
        String url = PrometheusProfile.prometheus().url();
        PrometheusProfile.prometheus().await("the device's live series", Duration.ofSeconds(30), () -> {
            String r = ServerProcess.get(url + "/api/v1/query?query=DCGM_FI_DEV_XID_ERRORS%7BHostname%3D%22" + NODE + "%22%2Cjob%3D%22cluster%22%7D");
            return r != null && r.contains("\"79\"");
        });
        String alert = """
                {"version":"4","groupKey":"{}:{alertname=\\"GpuXidDeviceFault\\"}","status":"firing","receiver":"acceltriage",
                 "alerts":[{"status":"firing","labels":{"alertname":"GpuXidDeviceFault","node":"%s","Hostname":"%s","gpu":"%s","xid":"79","severity":"critical"},
                   "annotations":{"summary":"XID 79 on %s GPU %s"},"startsAt":"%s","endsAt":"0001-01-01T00:00:00Z",
                   "fingerprint":"%s"}]}
                """.formatted(NODE, NODE, GPU, NODE, GPU, PrometheusProfile.FAULT, Long.toHexString(System.nanoTime()));
        given().header("Authorization", "Bearer test-token").contentType("application/json").body(alert).post("/api/v1/alerts").then()
                .statusCode(200);
        String incident = ReviewPageBrowserTest.awaitTriaged(NODE);

        String page = given().get("/incidents/" + incident).then().statusCode(200).extract().asString();
        Matcher spark = Pattern.compile("<tr class=\"spark\"><td>" + NODE + " GPU " + GPU + "</td><td><code>DCGM_FI_DEV_XID_ERRORS</code></td>"
                + "\\s*<td>(.*?)</td><td>(<svg.*?</svg>)</td>", Pattern.DOTALL).matcher(page);
        assertTrue(spark.find(), "a sparkline of the device's XID gauge: " + page);
        assertEquals("0 → <b>79</b>", spark.group(1), "before the fault (from Prometheus) → at the alert (stored)");
        String svg = spark.group(2);
        String[] points = svg.replaceAll("(?s).*<polyline[^>]* points=\"([^\"]*)\".*", "$1").split(" ");
        assertTrue(points.length >= 55, "the range query's points, not a pair: " + points.length);
        double markX = Double.parseDouble(svg.replaceAll("(?s).*<line class=\"mark\" x1=\"([0-9.]+)\".*", "$1"));
        assertEquals(60.0, markX, 2.0, "the fault is half-way along the hour");
        for (String p : points) {
            double x = Double.parseDouble(p.split(",")[0]);
            double y = Double.parseDouble(p.split(",")[1]);
            if (x < markX - 1) assertEquals(25.0, y, 0.01, "0 before the fault: " + p);
            if (x > markX + 3) assertEquals(3.0, y, 0.01, "79 after the fault: " + p);
        }
        assertTrue(page.contains("From Prometheus: 30 min before to 30 min after the fault"), page);
        TestAuth.signOut();

        String base = root.toString().replaceAll("/$", "");
        Path work = Files.createDirectories(Path.of("target", "chromium", UUID.randomUUID().toString()));
        Path shot = Path.of("docs", "screenshots", "incident-sparklines-prometheus.png");
        try (Chromium browser = Chromium.start(work.resolve("profile"))) {
            browser.open(base + "/incidents/" + incident);
            browser.type("#token", TestAuth.VIEWER);
            browser.click("button[type=submit]");
            browser.urlOnce(u -> u.endsWith("/incidents/" + incident));
            browser.find("#incident-charts svg.sparkline line.mark");
            browser.find("#incident-charts svg.sparkline > title");
            assertTrue(browser.text("#incident-charts-source").contains("From Prometheus"), browser.text("#incident-charts-source"));
            browser.screenshotOf("#incident-charts", shot);
        }
        assertTrue(Files.size(shot) > 2_000, "a real screenshot");
    }
}
