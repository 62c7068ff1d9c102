package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An incident page as the person on call reads it, in a real headless Chromium: what they must do and
 * what was already done as lists, no empty sections, relative times with the absolute time in a title,
 * the summary as text, and a banner with the way to the reset while the circuit breaker is tripped.
 * The screenshot goes to docs/screenshots/ (the README shows it).
 */
@QuarkusTest
class IncidentPageBrowserTest {

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @TestHTTPResource("/")
    URL root;

    @AfterEach
    void closeBreaker() {
        breaker.reset("test: incident page shown");
        TestAuth.signOut();
    }

    @Test
    void theIncidentPageListsWhatToDoAndWhatWasDoneAndWarnsOfATrippedBreaker() throws Exception {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-04\",\"gpu\":1,\"xid\":48}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
        String incident = awaitPending("gpu-h100-04");
        TestAuth.signOut();

        String base = root.toString().replaceAll("/$", "");
        Path work = Files.createDirectories(Path.of("target", "chromium", UUID.randomUUID().toString()));
        try (Chromium browser = Chromium.start(work.resolve("profile"))) {
            browser.open(base + "/incidents/" + incident);
            browser.type("#token", TestAuth.APPROVER);
            browser.click("button[type=submit]");
            browser.urlOnce(u -> u.endsWith("/incidents/" + incident));
            String page = browser.source();
            assertFalse(page.contains("breaker-banner"), "no banner while the breaker is closed");
            String mustDo = browser.text("#must-do");
            assertTrue(mustDo.contains("Approve or reject reset-gpu gpu-h100-04/1"), mustDo);
            String done = browser.text("#done");
            assertTrue(done.contains("cordon-node gpu-h100-04") && done.contains("succeeded"), done);
            assertFalse(page.contains(">None.<") || page.contains("None recorded") || page.contains("Not diagnosed yet"),
                    "empty sections are left out");
            assertTrue(page.contains("ago</time>") && page.matches("(?s).*<time title=\"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\">.*"),
                    "relative times carry the absolute time in a title");
            assertFalse(browser.source().contains("<pre>XID") || page.matches("(?s).*id=\"summary\"><pre>.*"), "the summary is text, not a monospace block");
            assertTrue(browser.text("#summary").contains("XID 48"), browser.text("#summary"));

            breaker.trip("test: two nodes of one pool asked for fencing at once");
            browser.open(base + "/incidents/" + incident);
            String banner = browser.text("#breaker-banner");
            assertTrue(banner.contains("circuit breaker is tripped") && banner.contains("reset"), banner);
            assertTrue(browser.source().contains("href=\"/fleet#breaker\""), "the banner links to the reset");
            browser.screenshot(Path.of("docs", "screenshots", "incident-page.png"));

            // the fleet map: each node coloured by its health, a legend, and the way to the node's open incident
            browser.open(base + "/fleet");
            String legend = browser.text("#legend");
            assertTrue(legend.contains("cordoned") && legend.contains("device plugin missing") && legend.contains("not ready"), legend);
            String fleet = browser.source();
            assertTrue(fleet.contains("class=\"node deadgpus\" id=\"node-gpu-h100-04\""), "GPU 1 of gpu-h100-04 is not allocatable");
            assertTrue(fleet.contains("class=\"node healthy\" id=\"node-gpu-h100-01\""), "an untouched node is healthy");
            assertTrue(browser.text("#node-gpu-h100-04").contains("open incident"), browser.text("#node-gpu-h100-04"));
            assertTrue(fleet.contains("href=\"/incidents/" + incident + "\""), "the tile links to the incident");
            browser.screenshot(Path.of("docs", "screenshots", "fleet.png"));

            // the list: counts by state and what was done per row
            browser.open(base + "/");
            assertTrue(browser.text("#state-counts").contains("awaiting approval"), browser.text("#state-counts"));
            assertTrue(java.util.regex.Pattern.compile("<td class=\"small done\">cordon-node[^<]*reset-gpu awaiting approval</td>")
                    .matcher(browser.source()).find(), "what was done per row");
            browser.screenshot(Path.of("docs", "screenshots", "incidents.png"));
        }
        assertTrue(Files.size(Path.of("docs", "screenshots", "incident-page.png")) > 10_000, "a real screenshot");
    }

    static String awaitPending(String node) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (Instant.now().isBefore(deadline)) {
            var list = given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            if ("awaiting_approval".equals(list.getString("items[0].state"))) return list.getString("items[0].id");
            Thread.sleep(200);
        }
        throw new AssertionError("no incident awaiting approval for " + node);
    }
}
