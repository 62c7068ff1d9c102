package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** /reliability and the incident page's sparklines over HTTP, after a real sandbox fault. */
@QuarkusTest
class ReliabilityPageTest {

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    /** A drill answers when it is done: longer than a request's usual 30 s on a loaded machine. */
    static final io.restassured.config.RestAssuredConfig PATIENT = io.restassured.RestAssured.config().httpClient(
            io.restassured.config.HttpClientConfig.httpClientConfig().setParam("http.socket.timeout", 180_000));

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void afterAFaultTheReliabilityPageChartsItsFamilyAndTheRepeatOffenderTheRuleCounts() {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, "gpu-a100-01"); // only ActionsApiTest faults this node, on GPU 0: GPU 3's history and XID gauge are this test's alone
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-a100-01\",\"gpu\":3,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
        String incident = ReviewPageBrowserTest.awaitTriaged("gpu-a100-01");
        TestAuth.signOut();

        String page = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/reliability").then().statusCode(200)
                .contentType(containsString("text/html")).extract().asString();
        for (String id : List.of("detect", "decide", "mitigate", "resolve", "gpu-hours", "per-family", "repeat-gpus", "repeat-nodes")) {
            assertTrue(Pattern.compile("id=\"chart-" + id + "\">\\s*<h3>[^<]+</h3>\\s*<svg ").matcher(page).find(), id + ": " + page);
        }
        assertTrue(page.contains("<a href=\"/reliability\">Reliability</a>"), "linked from the navigation");
        String family = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/incidents/" + incident).then().statusCode(200)
                .extract().path("family");
        Matcher perFamily = Pattern.compile("id=\"chart-per-family\">.*?</svg>", Pattern.DOTALL).matcher(page);
        assertTrue(perFamily.find() && perFamily.group().contains("<title>" + family + ": "), "the incident's family is a bar: " + page);
        Matcher decide = Pattern.compile("id=\"chart-decide\">.*?</svg>", Pattern.DOTALL).matcher(page);
        assertTrue(decide.find() && decide.group().contains("<circle") && decide.group().contains("data-series=\"" + family + "\""),
                "the incident's time to decide is a point of its family's line: " + decide.group());
        // The sandbox's alert carries its startsAt (when the rule began firing): the fault's start, so the incident has a time to detect.
        Object faultAt = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=2020-01-01T00:00:00Z").then()
                .statusCode(200).extract().path("timings.find { it.incidentId == '" + incident + "' }.faultAt");
        assertTrue(faultAt != null, "the incident's fault start is known");
        Matcher detect = Pattern.compile("id=\"chart-detect\">.*?</svg>", Pattern.DOTALL).matcher(page);
        assertTrue(detect.find() && detect.group().contains("data-series=\"" + family + "\"") && detect.group().contains("<circle"),
                "the incident's time to detect is a point of its family's line: " + detect.group());
        Matcher gpus = Pattern.compile("id=\"chart-repeat-gpus\">.*?</svg>", Pattern.DOTALL).matcher(page);
        // The incident's XID 79, recorded in the GPU's fault history: what the repeat-offender rule counts.
        assertTrue(gpus.find() && gpus.group().contains("<title>gpu-a100-01/3: 1 fatal XIDs</title>"), gpus.group());
        // The incident was decided within the policy's minute: the "decided" objective has a met bar, and the pools their budgets.
        Matcher met = Pattern.compile("id=\"chart-objectives-met\">.*?</svg>", Pattern.DOTALL).matcher(page);
        assertTrue(met.find() && Pattern.compile("<title>decided: [1-9][0-9]* incidents</title>").matcher(met.group()).find(), page);
        assertTrue(page.contains("id=\"chart-objectives-breached\"") && page.contains("id=\"chart-budgets\""), page);
    }

    @Test
    void aDrillThatRanIsAStripOfItsRunsNamingItsModeAndOutcome() {
        // device-plugin faults gpu-a100-10, which no other test of this class touches.
        FreshFleet.prepare(database, breaker);
        FreshFleet.forget(database, "gpu-a100-10");
        io.restassured.path.json.JsonPath run = given().config(PATIENT)
                .spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"name\":\"device-plugin\"}")
                .post("/api/v1/drills").then().statusCode(200).extract().jsonPath();
        String outcome = run.getBoolean("passed") ? "passed" : "failed";
        String page = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/reliability").then().statusCode(200).extract().asString();
        Matcher drills = Pattern.compile("id=\"chart-drills\">\\s*<h3>[^<]+</h3>\\s*<svg .*?</svg>", Pattern.DOTALL).matcher(page);
        assertTrue(drills.find(), page);
        assertTrue(drills.group().contains("data-strip=\"device-plugin · sandbox\""), "a strip for the drill in its mode: " + drills.group());
        // The run's own square: its drill, mode and outcome, and the incident it followed.
        assertTrue(Pattern.compile("<rect class=\"mark " + (run.getBoolean("passed") ? "good" : "bad") + "\"[^>]*><title>device-plugin · sandbox · "
                + "[0-9-]{5} [0-9:]{5}: " + outcome + " \\(incident " + Pattern.quote(run.getString("incidentId")) + "\\)").matcher(drills.group())
                .find(), outcome + ": " + drills.group());
        assertTrue(!page.contains("id=\"no-drills\""), "no empty state once a drill ran");
        // A window that starts after the run has no drill in it: the empty state says how to run one.
        String later = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/reliability?since="
                + java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1))
                .then().statusCode(200).extract().asString();
        assertTrue(!later.contains("id=\"chart-drills\""), later);
        assertTrue(later.contains("No drill ran in this window") || later.contains("No recovery objective or drill result is recorded yet"), later);
    }

    @Test
    void theIncidentPageDrawsTheDeviceMetricsTriageReadAroundTheFault() {
        TestAuth.asAdmin();
        FreshFleet.prepare(database, breaker);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-09\",\"gpu\":0,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202);
        String incident = ReviewPageBrowserTest.awaitTriaged("gpu-h100-09");
        TestAuth.signOut();
        String page = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/incidents/" + incident).then().statusCode(200).extract().asString();
        Matcher table = Pattern.compile("<table id=\"incident-charts\".*?</table>", Pattern.DOTALL).matcher(page);
        assertTrue(table.find(), page);
        assertTrue(table.group().contains("DCGM_FI_DEV_XID_ERRORS") && table.group().contains("<svg") && table.group().contains("class=\"sparkline\""),
                "the XID reading as a sparkline: " + table.group());
        // Which readings the chart leaves out (neither moved nor cited) is IncidentChartsTest's: an earlier test of the run may
        // have scraped this node, so here any reading may have moved since.
        assertTrue(Pattern.compile("<title>gpu-h100-09 GPU 0 DCGM_FI_DEV_XID_ERRORS: ([0-9.]+ before, )?79 at the alert[^<]*</title>")
                .matcher(table.group()).find(), table.group());
    }

    @Test
    void aBadSinceIsA400PageThatSaysWhyAndAnonymousVisitorsSignInFirst() {
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/reliability?since=yesterday").then().statusCode(400)
                .body(containsString("since must be an RFC 3339 time"));
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/reliability?pool=<b>").then().statusCode(400)
                .body(containsString("pool must be a Kubernetes label value")).body(containsString("&lt;b&gt;"));
        int status = given().redirects().follow(false).get("/reliability").then().extract().statusCode();
        assertTrue(status == 401 || status == 303 || status == 302, "anonymous: " + status);
    }
}
