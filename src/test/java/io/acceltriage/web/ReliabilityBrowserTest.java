package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * /reliability and the incident page's sparklines in a real headless Chromium, signed in as a
 * viewer, after a sandbox fault; the screenshots the README shows are kept in docs/screenshots/.
 */
@QuarkusTest
class ReliabilityBrowserTest {

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
    void aViewerSeesTheReliabilityChartsAndTheIncidentsSparklinesDrawn() throws Exception {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-06\",\"gpu\":4,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202);
        String incident = ReviewPageBrowserTest.awaitTriaged("gpu-h100-06");
        TestAuth.signOut();
        // A drill's run for the drills chart (device-plugin: gpu-a100-10, which no other test of this class faults).
        FreshFleet.forget(database, "gpu-a100-10");
        given().config(ReliabilityPageTest.PATIENT).spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json")
                .body("{\"name\":\"device-plugin\"}").post("/api/v1/drills").then().statusCode(200);

        String base = root.toString().replaceAll("/$", "");
        Path work = Path.of("target", "chromium", UUID.randomUUID().toString());
        Files.createDirectories(work);
        Path shots = Path.of("docs", "screenshots");
        try (Chromium browser = Chromium.start(work.resolve("profile"))) {
            browser.open(base + "/reliability");
            assertTrue(browser.url().contains("/login"), "an anonymous visitor signs in first: " + browser.url());
            browser.type("#token", TestAuth.VIEWER);
            browser.click("button[type=submit]");
            browser.urlOnce(u -> u.endsWith("/reliability"));
            // The browser parsed each chart as SVG: its title is an element the DOM knows.
            for (String id : new String[] {"detect", "decide", "mitigate", "resolve", "gpu-hours", "per-family", "repeat-gpus"}) {
                String title = browser.text("#chart-" + id + " h3");
                assertTrue(!title.isBlank(), id);
                browser.find("#chart-" + id + " svg[role=img] > title");
            }
            browser.find("#chart-decide svg circle");
            browser.find("#chart-per-family svg rect.bar");
            browser.find("#chart-detect svg circle");
            browser.find("#chart-drills svg rect.mark > title");
            browser.viewport(shots.resolve("reliability.png"));
            browser.screenshotOf("#chart-drills", shots.resolve("reliability-drills.png"));

            browser.open(base + "/incidents/" + incident + "#incident-charts");
            browser.find("#incident-charts svg.sparkline polyline");
            assertTrue(browser.text("#incident-charts").contains("DCGM_FI_DEV_XID_ERRORS"), browser.text("#incident-charts"));
            browser.screenshotOf("#incident-charts", shots.resolve("incident-sparklines.png"));
        }
        assertTrue(Files.size(shots.resolve("reliability.png")) > 10_000, "a real screenshot");
        assertTrue(Files.size(shots.resolve("incident-sparklines.png")) > 2_000, "a real screenshot");
        assertTrue(Files.size(shots.resolve("reliability-drills.png")) > 2_000, "a real screenshot");
    }
}
