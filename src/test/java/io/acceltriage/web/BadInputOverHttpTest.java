package io.acceltriage.web;

import static io.acceltriage.testing.Refused.headers;
import static io.acceltriage.testing.Refused.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditVerifier;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.ingest.AlertmanagerPayloads;
import io.acceltriage.ingest.AlertmanagerPayloadsPropertyTest;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import io.acceltriage.testing.RawHttp;
import io.acceltriage.testing.StoreCounts;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input on every endpoint the service exposes, over real HTTP, generated from fixed seeds: each
 * case gets a 4xx with a reason, never a 5xx, and a batch of them leaves the store as it was (no
 * alert, incident, action or audit record other than the refusals themselves) with the audit chain
 * intact. Requests are written by hand ({@link RawHttp}) so that a path or a body can be anything.
 */
@QuarkusTest
class BadInputOverHttpTest {

    static final String WEBHOOK = "Bearer test-token";
    static final String APPROVER = "Bearer approver-token-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Database database;
    @Inject
    AuditVerifier verifier;
    @Inject
    Executor executor;
    @Inject
    ObjectMapper serverMapper;

    RawHttp http;
    StoreCounts before;

    @BeforeEach
    void connect() {
        http = new RawHttp(RestAssured.port);
    }

    /** Every test ends as it began: nothing stored, nothing acted on, the chain intact. */
    @AfterEach
    void nothingStoredAndTheChainHolds() {
        if (before == null) return;
        assertEquals(before, StoreCounts.of(database), "a batch of refused requests stored or set off something");
        assertTrue(verifier.verify().intact(), "the audit chain verifies after the batch");
    }

    void begin() {
        before = StoreCounts.settled(database);
    }

    // ---- POST /api/v1/alerts ----

    @Test
    void aBrokenAlertmanagerDeliveryIsRefusedWithAReason() {
        begin();
        String valid = AlertmanagerPayloadsPropertyTest.VALID.replace("{}:{alertname=\\\"GpuXidError\\\"}", "bad-input-" + UUID.randomUUID());
        // Only the broken ones: a mutation that happens to be valid would rightly be stored.
        Gen<byte[]> broken = BadInputs.jsonMutationsOf(valid).filter(BadInputOverHttpTest::refusedByTheParser);
        Gen.forAll(404, 300, broken, BadInputs::show, body ->
                refused(http.post("/api/v1/alerts", headers("Authorization", WEBHOOK, "Content-Type", "application/json"), body), 400));
    }

    @Test
    void aDeliveryWithoutTheRightTokenIsRefusedAndNotRead() {
        begin();
        byte[] valid = BadInputs.utf8(AlertmanagerPayloadsPropertyTest.VALID.replace("{}:{alertname=\\\"GpuXidError\\\"}", "forged-" + UUID.randomUUID()));
        Gen.forAll(401, 120, forgedAlertmanagerAuth(), String::valueOf, header ->
                refused(http.post("/api/v1/alerts", headers("Authorization", header, "Content-Type", "application/json"), valid), 401));
    }

    @Test
    void aBodyOverTheLimitIsRefusedWithAReason() {
        begin();
        for (int size : new int[] {1_048_577, 3_000_000}) {
            byte[] huge = BadInputs.utf8("{\"version\":\"4\",\"alerts\":[],\"pad\":\"" + "x".repeat(size) + "\"}");
            refused(http.post("/api/v1/alerts", headers("Authorization", WEBHOOK, "Content-Type", "application/json"), huge), 413);
        }
    }

    // ---- /api/v1/actions ----

    @Test
    void garbageActionIdsAndBodiesChangeNoAction() {
        ActionRecord pending = executor.carryOut("inc-bad-input-" + UUID.randomUUID().toString().substring(0, 8),
                new Proposal(ActionKind.CORDON_NODE, "gpu-h100-15", "bad input", List.of(), "bad input"),
                new Verdict(Decision.APPROVE, "actions.cordon-node.decision", List.of("a person approves"), false));
        assertEquals(ActionStatus.AWAITING_APPROVAL, pending.status());
        begin();
        Gen<String> ids = BadInputs.garbageIds();
        Gen<String> verbs = Gen.of("approve", "reject", "undo");
        byte[] decision = BadInputs.utf8("{\"approver\":\"test-approver\",\"reason\":\"looked at it\"}");
        Map<String, String> json = headers("Authorization", APPROVER, "Content-Type", "application/json");
        // Garbage ids with a good body: nothing of that name.
        Gen.forAll(7, 150, r -> "/api/v1/actions/" + ids.next(r) + "/" + verbs.next(r), String::valueOf,
                path -> refused(http.post(path, json, decision), -1));
        // The waiting action with a body that is no decision by the signed-in approver.
        Gen<byte[]> bodies = BadInputs.jsonMutationsOf(new String(decision, StandardCharsets.UTF_8)).filter(this::notADecisionOfTheApprover);
        Gen.forAll(8, 200, bodies, BadInputs::show, body ->
                refused(http.post("/api/v1/actions/" + pending.id() + "/" + (body.length % 2 == 0 ? "approve" : "reject"), json, body), -1));
        // A good body with no or forged credentials, or only a viewer's.
        Gen.forAll(9, 60, forgedAccessTokens(), String::valueOf, header -> refused(http.post("/api/v1/actions/" + pending.id() + "/approve",
                headers("Authorization", header, "Content-Type", "application/json"), decision), -1));
        assertEquals(ActionStatus.AWAITING_APPROVAL, executor.find(pending.id()).orElseThrow().status(), "the action still waits");
    }

    @Test
    void badQueryParametersAreRefusedWithAReason() {
        begin();
        Map<String, String> viewer = headers("Authorization", "Bearer viewer-token-0123456789");
        Gen.forAll(11, 100, BadInputs.badTimes(), String::valueOf, t -> {
            refused(http.get("/api/v1/incidents?since=" + enc(t), viewer), 400);
            refused(http.get("/api/v1/incidents?before=" + enc(t), viewer), 400);
            refused(http.get("/api/v1/audit?until=" + enc(t), viewer), 400);
        });
        Gen.forAll(12, 100, BadInputs.badLimits(), String::valueOf, n -> {
            refused(http.get("/api/v1/incidents?limit=" + enc(n), viewer), 400);
            refused(http.get("/api/v1/audit?limit=" + enc(n), viewer), 400);
        });
        Gen.forAll(13, 60, Gen.strings(1, 30), String::valueOf, s -> {
            refused(http.get("/api/v1/incidents?state=x" + enc(s), viewer), 400);
            refused(http.get("/api/v1/actions?status=x" + enc(s), viewer), 400);
            refused(http.get("/api/v1/audit?kind=x" + enc(s), viewer), 400);
            refused(http.get("/api/v1/audit?after=x" + enc(s), viewer), 400);
        });
    }

    @Test
    void garbageIdsInPathsAreNotFoundWithAReason() {
        begin();
        Map<String, String> approver = headers("Authorization", APPROVER);
        Map<String, String> form = headers("Authorization", APPROVER, "Content-Type", "application/x-www-form-urlencoded");
        Gen.forAll(14, 120, BadInputs.garbageIds(), String::valueOf, id -> {
            refused(http.get("/api/v1/incidents/" + id, approver), -1);
            refused(http.get("/api/v1/actions/" + id, approver), -1);
            refused(http.post("/incidents/" + id + "/actions/" + id + "/reject", form, BadInputs.utf8("reason=x")), -1);
            refused(http.post("/incidents/" + id + "/actions/act-0001/approve", form, new byte[0]), -1);
        });
    }

    /**
     * Targets that are not URIs (a bare '%', '|', '"', a space) or too long for the server: Vert.x
     * refuses them with a bare 400 or 414 before any handler of ours runs, so only the status can say why.
     */
    @Test
    void aRequestLineNoClientSendsIsRefusedBeforeTheApplication() {
        begin();
        Map<String, String> json = headers("Authorization", APPROVER, "Content-Type", "application/json");
        Gen.forAll(20, 40, BadInputs.invalidTargets(), String::valueOf, t -> {
            for (RawHttp.Answer a : List.of(http.get("/api/v1/actions/" + t, json), http.get("/api/v1/incidents?node=" + t, json),
                    http.post("/api/v1/approvals/" + t, json, new byte[0]),
                    http.post("/api/v1/alerts?" + t, headers("Authorization", WEBHOOK), BadInputs.utf8("{\"alerts\":[]}")))) {
                assertTrue(a.status() >= 400 && a.status() < 500, () -> "expected a 4xx, got " + a.status() + " " + abbreviate(a.text()));
            }
        });
    }

    // ---- /api/v1/breaker/reset ----

    @Test
    void aBreakerResetThatIsNotJsonOrNamesSomeoneElseIsRefused() {
        begin();
        String good = "{\"approver\":\"test-approver\",\"reason\":\"the fleet is healthy again\"}";
        Map<String, String> json = headers("Authorization", APPROVER, "Content-Type", "application/json");
        Gen<byte[]> bodies = BadInputs.jsonMutationsOf(good).filter(this::notADecisionOfTheApprover);
        Gen.forAll(15, 200, bodies, BadInputs::show, body -> refused(http.post("/api/v1/breaker/reset", json, body), -1));
        Gen.forAll(16, 40, forgedAccessTokens(), String::valueOf, header -> refused(http.post("/api/v1/breaker/reset",
                headers("Authorization", header, "Content-Type", "application/json"), BadInputs.utf8(good)), -1));
    }

    // ---- approval links, chat and login ----

    @Test
    void forgedApprovalLinksDoNothing() {
        begin();
        Gen<String> tokens = Gen.oneOf(BadInputs.garbageIds(),
                Gen.ascii(10, 80).map(s -> Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8)) + "."
                        + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32])),
                r -> "eyJhIjoiYWN0LTAwMDEiLCJkIjoiYXBwcm92ZSJ9." + Gen.ascii(43, 43).next(r).replaceAll("[^A-Za-z0-9_-]", "A"));
        Gen.forAll(17, 120, tokens, String::valueOf, token -> {
            refused(http.get("/api/v1/approvals/" + token, Map.of()), -1);
            refused(http.post("/api/v1/approvals/" + token, Map.of(), new byte[0]), -1);
        });
    }

    @Test
    void chatEndpointsRefuseWhatTheyCannotVerify() {
        begin();
        // The default profile configures neither Slack nor Teams: everything is refused, and says so.
        Gen<byte[]> bodies = Gen.oneOf(BadInputs.jsonMutationsOf("{\"type\":\"event_callback\",\"event_id\":\"Ev1\",\"event\":{}}"),
                BadInputs.junk());
        Gen<String> paths = Gen.of("/api/v1/slack/events", "/api/v1/slack/commands", "/api/v1/slack/interactions",
                "/api/v1/teams/messages");
        Map<String, String> signed = headers("X-Slack-Request-Timestamp", Long.toString(System.currentTimeMillis() / 1000),
                "X-Slack-Signature", "v0=" + "0".repeat(64), "Authorization", "HMAC AAAA", "Content-Type", "application/json");
        Gen.forAll(18, 120, r -> new Object[] {paths.next(r), bodies.next(r)}, c -> c[0] + " " + BadInputs.show((byte[]) c[1]),
                c -> refused(http.post((String) c[0], signed, (byte[]) c[1]), 401));
    }

    @Test
    void aSignInWithAnythingButAnIssuedTokenIsRefused() {
        begin();
        Gen<byte[]> forms = Gen.oneOf(
                Gen.strings(0, 60).map(t -> BadInputs.utf8("token=" + enc(t))),
                Gen.ascii(0, 60).map(t -> BadInputs.utf8("token=" + t + "&next=%2F")),
                BadInputs.notUtf8().map(b -> BadInputs.insert(BadInputs.utf8("token=admin-token-0123456789"), 6, b)),
                Gen.of("token=%", "token=%zz", "token=%FF%FE", "token", "=", "&&&", "token=admin-token-0123456789%00",
                        "token=" + "a".repeat(100_000)).map(BadInputs::utf8),
                BadInputs.junk());
        Map<String, String> form = headers("Content-Type", "application/x-www-form-urlencoded");
        Gen.forAll(19, 120, forms, BadInputs::show, body -> {
            RawHttp.Answer a = http.post("/login", form, body);
            refused(a, -1);
            assertFalse(String.valueOf(a.header("Set-Cookie")).contains("acceltriage"), "no session for a bad sign-in");
        });
    }

    // ---- generators and checks ----

    /** Authorization headers that are not Alertmanager's token: absent, wrong, near misses, malformed. */
    static Gen<String> forgedAlertmanagerAuth() {
        return Gen.oneOf(
                Gen.of(null, "", "Bearer", "Bearer ", "Bearer test-token-", "Bearer test-toke", "bearer TEST-TOKEN", "Token test-token",
                        "Bearer  test-token x", "Basic", "Basic !!!", "Basic " + b64("alertmanager:wrong"), "Basic " + b64("test-token"),
                        "Basic " + b64(":"), "Bearer " + "t".repeat(5000), "Bearer admin-token-0123456789"),
                Gen.ascii(1, 60).map(s -> "Bearer " + s),
                Gen.ascii(1, 60));
    }

    /** Access credentials that are no approver's: absent, forged, a viewer's. */
    static Gen<String> forgedAccessTokens() {
        return Gen.oneOf(
                Gen.of(null, "", "Bearer", "Bearer ", "Bearer viewer-token-0123456789", "Bearer approver-token-012345678",
                        "Bearer approver-token-01234567890", "Basic " + b64("test-approver:approver-token-0123456789"),
                        "Bearer test-token", "Bearer " + "a".repeat(4000)),
                Gen.ascii(1, 60).map(s -> "Bearer " + s),
                Gen.ascii(1, 40));
    }

    static boolean refusedByTheParser(byte[] body) {
        try {
            AlertmanagerPayloads.parse(body);
            return false;
        } catch (InvalidPayload e) {
            return true;
        }
    }

    /** True unless the service's own mapper reads the body as a decision by nobody in particular or by test-approver. */
    boolean notADecisionOfTheApprover(byte[] body) {
        if (new String(body, StandardCharsets.UTF_8).isBlank()) return false;
        try {
            ActionsResource.DecisionBody d = serverMapper.readValue(body, ActionsResource.DecisionBody.class);
            return d != null && d.approver() != null && !d.approver().isBlank() && !d.approver().equals("test-approver");
        } catch (java.io.IOException e) {
            return true;
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
