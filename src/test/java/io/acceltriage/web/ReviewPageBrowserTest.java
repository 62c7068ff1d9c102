package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The review page in a real headless Chromium: sign in with a token, open an incident's timeline,
 * approve the pending drain, and keep screenshots of the timeline in target/screenshots/ (the first
 * screen, and the whole page).
 */
@QuarkusTest
class ReviewPageBrowserTest {

    @Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @Inject
    io.acceltriage.store.Database freshDatabase;

    @TestHTTPResource("/")
    URL root;

    @Inject
    Executor executor;

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void anApproverSignsInReadsTheTimelineAndApprovesThePendingDrain() throws Exception {
        TestAuth.asAdmin();
        FreshFleet.prepare(freshDatabase, freshBreaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-05\",\"gpu\":1,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
        String incident = awaitTriaged("gpu-h100-05");
        // The default policy leaves a drain to a person: this is the action waiting for one.
        ActionRecord pending = executor.carryOut(incident,
                new Proposal(ActionKind.DRAIN_NODE, "gpu-h100-05", "move the remaining pods off gpu-h100-05", List.of(), "rules"),
                new Verdict(Decision.APPROVE, "actions.drain-node", List.of("policy: a person approves drains"), false));
        assertEquals(ActionStatus.AWAITING_APPROVAL, pending.status());
        TestAuth.signOut();

        String base = root.toString().replaceAll("/$", "");
        Path work = Path.of("target", "chromium", UUID.randomUUID().toString());
        Files.createDirectories(work);
        try (Chromium browser = Chromium.start(work.resolve("profile"))) {
            browser.open(base + "/incidents/" + incident);
            assertTrue(browser.url().contains("/login"), "an anonymous visitor is sent to the login form: " + browser.url());

            browser.type("#token", TestAuth.APPROVER);
            browser.click("button[type=submit]");
            String after = browser.urlOnce(u -> u.endsWith("/incidents/" + incident));
            assertTrue(after.endsWith("/incidents/" + incident), "after signing in, back to the incident: " + after);
            String page = browser.source();
            assertTrue(page.contains("test-approver") && page.contains("XID 79") && page.contains("drain-node"), page);
            assertTrue(browser.text("#action-" + pending.id()).contains("awaiting approval"), browser.text("#action-" + pending.id()));

            browser.click("#action-" + pending.id() + " button[name=approve]");
            browser.urlOnce(u -> u.contains("notice="));
            String notice = browser.text("#notice");
            assertTrue(notice.toLowerCase().contains("approved") && notice.contains("succeeded"), notice);
            String row = browser.text("#action-" + pending.id());
            assertTrue(!row.contains("awaiting approval"), "the action left the queue: " + row);
            assertTrue(browser.source().contains("approved"), "the approval is on the timeline");

            browser.viewport(Path.of("target", "screenshots", "incident-timeline-top.png"));
            browser.screenshot(Path.of("target", "screenshots", "incident-timeline.png"));
        }
        assertTrue(Files.size(Path.of("target", "screenshots", "incident-timeline.png")) > 10_000, "a real screenshot");

        TestAuth.asAdmin();
        given().get("/api/v1/audit?incident=" + incident + "&kind=approval").then().statusCode(200)
                .body("items[0].actor", equalTo("test-approver"));
    }

    static String awaitTriaged(String node) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            JsonPath list = given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            List<String> states = list.getList("items.state");
            if (!states.isEmpty() && !"triaging".equals(states.get(0))) {
                return list.getString("items[0].id");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        throw new AssertionError("no triaged incident for " + node + " within 60 s");
    }
}
