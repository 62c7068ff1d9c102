package io.acceltriage.web;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.policy.Breaker;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Decisions are taken by the signed-in person, never by a name in the body: the breaker reset is the
 * case that trusted the body (an admin, who is no approver of the policy, reset it "as" the approver).
 */
@QuarkusTest
class VerifiedDeciderTest {

    private static final String REASON = "VerifiedDeciderTest: a drill";

    @Inject
    Breaker breaker;

    @Inject
    AuditReader audit;

    @AfterEach
    void closeBreaker() {
        breaker.reset("VerifiedDeciderTest");
        TestAuth.signOut();
    }

    @Test
    void aBreakerResetNamingSomeoneElseIsRefusedAndOnlyANamedApproverSignedInResetsIt() {
        breaker.trip(REASON);
        // test-admin is signed in but is not among the policy's approvers; naming test-approver changes nothing.
        given().spec(TestAuth.bearer(TestAuth.ADMIN)).contentType("application/json")
                .body(Map.of("approver", "test-approver", "reason", "I say so")).post("/api/v1/breaker/reset")
                .then().statusCode(403).body("error", containsString("may not decide as test-approver"));
        given().spec(TestAuth.bearer(TestAuth.ADMIN)).contentType("application/json").body("{}").post("/api/v1/breaker/reset")
                .then().statusCode(403).body("error", containsString("test-admin is not among the approvers"));
        assertTrue(breaker.tripped().isPresent(), "the breaker stays tripped");
        assertEquals(List.of(), resets(), "no reset is audited");
        assertTrue(audit.find(new AuditQuery(null, AuditKind.ACCESS_DENIED, "test-admin", null, null, null, null, 100)).stream()
                .anyMatch(r -> r.payload().path("attempted").asText().equals("reset the circuit breaker")), "the refusal is audited as test-admin");

        // The approver signed in resets it with no name in the body at all, and the record names them.
        given().spec(TestAuth.bearer(TestAuth.APPROVER)).contentType("application/json").body("{\"reason\":\"checked the fleet\"}")
                .post("/api/v1/breaker/reset").then().statusCode(200).body("wasTripped", equalTo(true)).body("tripped", equalTo(false));
        List<AuditRecord> resets = resets();
        assertEquals(1, resets.size(), resets.toString());
        assertEquals("test-approver", resets.get(0).actor());
    }

    private List<AuditRecord> resets() {
        return audit.find(new AuditQuery(null, AuditKind.BREAKER_RESET, null, null, null, null, null, 10_000)).stream()
                .filter(r -> r.payload().path("trippedFor").asText().equals(REASON)).toList();
    }
}
