package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.acceltriage.TestAuth;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The smaller holes of the pages and decisions, each over real HTTP. */
@QuarkusTest
class PageHardeningTest {

    @Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @Inject
    io.acceltriage.store.Database freshDatabase;

    static final String FORM = "application/x-www-form-urlencoded";

    @Inject
    Executor executor;

    @Inject
    Database database;

    @Test
    void aLoginWhoseNextHoldsATabOrACarriageReturnGoesHomeInsteadOfFailing() {
        for (String next : List.of("/\t/evil.example", "/incidents\r\nSet-Cookie: x=y", "/a b", "/\u0000")) {
            given().redirects().follow(false).contentType(FORM).formParam("token", TestAuth.VIEWER).formParam("next", next)
                    .post("/login").then().statusCode(303).header("Location", "/");
            given().queryParam("next", next).get("/login").then().statusCode(200);
        }
        given().redirects().follow(false).contentType(FORM).formParam("token", TestAuth.VIEWER).formParam("next", "/audit?q=x")
                .post("/login").then().statusCode(303).header("Location", "/audit?q=x");
    }

    @Test
    void aSessionCookieCopiedBeforeSigningOutIsRefusedAfterwards() {
        String cookie = given().redirects().follow(false).contentType(FORM).formParam("token", TestAuth.VIEWER)
                .formParam("next", "/audit").post("/login").then().statusCode(303).extract().cookie("acceltriage_session");
        String other = given().redirects().follow(false).contentType(FORM).formParam("token", TestAuth.VIEWER)
                .post("/login").then().statusCode(303).extract().cookie("acceltriage_session");
        given().redirects().follow(false).cookie("acceltriage_session", cookie).get("/audit").then().statusCode(200);

        // The browser signs out (a same-origin form post) and forgets the cookie; a copy taken before must not work.
        given().redirects().follow(false).cookie("acceltriage_session", cookie)
                .post("/logout").then().statusCode(303).header("Location", "/login")
                .header("Set-Cookie", containsString("Max-Age=0"));
        given().redirects().follow(false).cookie("acceltriage_session", cookie).get("/audit").then().statusCode(303)
                .header("Location", "/login?next=%2Faudit");
        given().redirects().follow(false).cookie("acceltriage_session", other).get("/audit").then().statusCode(200);
    }

    @Test
    void redirectsStayOnTheHostTheBrowserUsesWhateverTheHostHeaderSays() {
        given().redirects().follow(false).header("Host", "evil.example").contentType(FORM).formParam("token", TestAuth.VIEWER)
                .formParam("next", "/incidents").post("/login").then().statusCode(303).header("Location", "/incidents");
        given().redirects().follow(false).header("Host", "evil.example").get("/audit").then().statusCode(303)
                .header("Location", "/login?next=%2Faudit");
        given().redirects().follow(false).header("Host", "evil.example").spec(TestAuth.bearer(TestAuth.APPROVER))
                .post("/fleet/breaker/reset").then().statusCode(303).header("Location", containsString("/fleet?notice="))
                .header("Location", org.hamcrest.Matchers.startsWith("/fleet"));
    }

    @Test
    void pagesCarryAContentSecurityPolicyAndRefuseFramingAndSniffing() {
        for (String page : List.of("/", "/audit", "/fleet")) {
            given().spec(TestAuth.bearer(TestAuth.VIEWER)).get(page).then().statusCode(200)
                    .header("Content-Security-Policy", containsString("default-src 'none'"))
                    .header("Content-Security-Policy", containsString("frame-ancestors 'none'"))
                    .header("X-Frame-Options", "DENY").header("X-Content-Type-Options", "nosniff")
                    .header("Referrer-Policy", "no-referrer");
        }
        given().get("/login").then().statusCode(200).header("X-Frame-Options", "DENY");
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/breaker").then().statusCode(200)
                .header("X-Content-Type-Options", "nosniff");
    }

    @Test
    void anIncidentsStateFollowsItsActionWhenItIsApprovedAndUndoneOrRejected() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        String approved = awaitingIncident();
        ActionRecord cordon = awaiting(approved, "gpu-h100-10");
        decide(cordon.id(), "approve").then().statusCode(200).body("status", equalTo("succeeded"));
        assertEquals("mitigated", state(approved), "the approved action ran: nothing waits on a person");
        decide(cordon.id(), "undo").then().statusCode(200).body("status", equalTo("undone"));
        assertEquals("escalated", state(approved), "a person reverted the mitigation: the fault is theirs again");

        String rejected = awaitingIncident();
        ActionRecord other = awaiting(rejected, "gpu-h100-15");
        decide(other.id(), "reject").then().statusCode(200).body("status", equalTo("rejected"));
        assertEquals("escalated", state(rejected), "the mitigation was refused: a person handles the fault");
        assertEquals(ActionStatus.REJECTED, executor.find(other.id()).orElseThrow().status());
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).queryParam("incident", rejected).queryParam("kind", "incident.state")
                .get("/api/v1/audit").then().statusCode(200).body("items.payload.to", org.hamcrest.Matchers.hasItem("escalated"));
    }

    private String awaitingIncident() {
        String id = "inc-follows-" + UUID.randomUUID().toString().substring(0, 8);
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("insert into incidents (id, subject_key, subject_kind, subject_ns, subject_name, node, state,"
                    + " alert_count, opened_at, updated_at) values (?,?,?,?,?,?,?,?,?,?)")) {
                Timestamp now = Timestamp.from(Instant.now());
                Object[] v = {id, "node:" + id, "NODE", null, id, null, "AWAITING_APPROVAL", 1, now, now};
                for (int i = 0; i < v.length; i++) ps.setObject(i + 1, v[i]);
                ps.executeUpdate();
            }
            return null;
        });
        return id;
    }

    private ActionRecord awaiting(String incident, String node) {
        return executor.carryOut(incident, new Proposal(ActionKind.CORDON_NODE, node, "test", List.of(), "test"),
                new Verdict(Decision.APPROVE, "actions.cordon-node.decision", List.of("a person approves"), false));
    }

    private static io.restassured.response.Response decide(String id, String verb) {
        return given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body(Map.of("reason", "checked"))
                .post("/api/v1/actions/" + id + "/" + verb);
    }

    private static String state(String id) {
        return given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/incidents/" + id).then().statusCode(200).extract().path("state");
    }
}
