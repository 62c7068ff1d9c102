package io.acceltriage.chat;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.chat.teams.ApprovalLinks;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.acceltriage.store.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Slack and Teams, both ways, over real HTTP: every endpoint with correctly and wrongly signed
 * requests (a wrong one gets 401 and nothing happens), and the outbound side against {@link FakeChat}.
 */
@QuarkusTest
@TestProfile(ChatTestProfile.class)
class ChatChannelsTest {

    static final String FORM = "application/x-www-form-urlencoded";

    @Inject
    ApprovalLinks links;
    @Inject
    Escalations escalations;
    @Inject
    AuditReader auditReader;
    @Inject
    Database database;
    @Inject
    io.acceltriage.policy.Breaker breaker;
    @Inject
    io.acceltriage.notify.ChatOutbox outbox;

    // ---- Slack: events ----

    @Test
    void slackUrlVerificationEchoesTheChallengeOnlyWhenSigned() {
        String body = "{\"type\":\"url_verification\",\"token\":\"x\",\"challenge\":\"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P\"}";
        slack("/api/v1/slack/events", body, "application/json", now(), ChatTestProfile.SLACK_SECRET, null)
                .then().statusCode(200).body("challenge", equalTo("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"));
        for (Response wrong : wronglySigned("/api/v1/slack/events", body, "application/json")) {
            wrong.then().statusCode(401).body("error", containsString("X-Slack"));
        }
    }

    @Test
    void aMentionIsAnsweredOnceInItsThreadEvenWhenSlackRetries() {
        String event = "{\"type\":\"event_callback\",\"event_id\":\"Ev0MENTION1\",\"event_time\":1700000001,\"event\":{"
                + "\"type\":\"app_mention\",\"user\":\"U0SOMEONE\",\"text\":\"<@U0BOT> help\",\"ts\":\"1700000001.000100\","
                + "\"channel\":\"C0MENTION\"}}";
        slack("/api/v1/slack/events", event, "application/json", now(), ChatTestProfile.SLACK_SECRET, null)
                .then().statusCode(200);
        slack("/api/v1/slack/events", event, "application/json", now(), ChatTestProfile.SLACK_SECRET, "1")
                .then().statusCode(200).body("duplicate", equalTo("Ev0MENTION1"));
        String forged = event.replace("Ev0MENTION1", "Ev0FORGED1").replace("C0MENTION", "C0FORGED");
        for (Response wrong : wronglySigned("/api/v1/slack/events", forged, "application/json")) {
            wrong.then().statusCode(401);
        }

        FakeChat.Received reply = awaitOne("/slack/api/chat.postMessage", r -> r.json().path("channel").asText().equals("C0MENTION"));
        assertEquals("1700000001.000100", reply.json().path("thread_ts").asText());
        assertTrue(reply.json().path("text").asText().contains("investigate pod"), reply.body());
        assertEquals("Bearer xoxb-test-token", reply.authorization());
        sleep(1000);
        assertEquals(1, posts("/slack/api/chat.postMessage", r -> r.json().path("channel").asText().equals("C0MENTION")).size(),
                "a retried event is answered once");
        assertTrue(posts("/slack/api/", r -> r.body().contains("C0FORGED")).isEmpty(), "a wrongly signed event does nothing");
    }

    // ---- Slack: slash command ----

    @Test
    void aSlashCommandIsAcknowledgedAtOnceAndAnsweredOnItsResponseUrl() {
        String good = form("command", "/triage", "text", "status node gpu-h100-02", "user_id", "U0SOMEONE",
                "user_name", "sam", "channel_id", "C0OPS", "response_url", fake() + "/slack/response/cmd-status");
        long start = System.nanoTime();
        slack("/api/v1/slack/commands", good, FORM, now(), ChatTestProfile.SLACK_SECRET, null).then().statusCode(200)
                .body("text", containsString("On it"));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 3000, "Slack waits 3 s at most");

        String forged = form("command", "/triage", "text", "help", "user_id", "U0SOMEONE",
                "response_url", fake() + "/slack/response/cmd-forged");
        for (Response wrong : wronglySigned("/api/v1/slack/commands", forged, FORM)) {
            wrong.then().statusCode(401);
        }

        JsonNode answer = awaitOne("/slack/response/cmd-status", r -> true).json();
        assertEquals("in_channel", answer.path("response_type").asText());
        assertTrue(answer.path("text").asText().contains("gpu-h100-02") && answer.path("text").asText().contains("Ready="),
                answer.toString());
        sleep(500);
        assertTrue(posts("/slack/response/cmd-forged", r -> true).isEmpty(), "a wrongly signed command does nothing");
    }

    // ---- replays of signed requests ----

    @Test
    void aSignedSlackCommandOrClickSentAgainWithinItsWindowRunsOnce() {
        String command = form("command", "/triage", "text", "status node gpu-h100-03", "user_id", "U0SOMEONE",
                "user_name", "sam", "channel_id", "C0OPS", "response_url", fake() + "/slack/response/cmd-replayed");
        long ts = now();
        slack("/api/v1/slack/commands", command, FORM, ts, ChatTestProfile.SLACK_SECRET, null).then().statusCode(200);
        // The very same bytes, signature and timestamp: a captured request sent again within the five minutes.
        slack("/api/v1/slack/commands", command, FORM, ts, ChatTestProfile.SLACK_SECRET, null).then().statusCode(409)
                .body("error", containsString("replay"));
        awaitOne("/slack/response/cmd-replayed", r -> true);

        String click = click("U0STRANGER", "reject", "act-0009", "click-replayed");
        slack("/api/v1/slack/interactions", click, FORM, ts, ChatTestProfile.SLACK_SECRET, null).then().statusCode(200);
        slack("/api/v1/slack/interactions", click, FORM, ts, ChatTestProfile.SLACK_SECRET, null).then().statusCode(409);
        awaitOne("/slack/response/click-replayed", r -> true);
        sleep(1000);
        assertEquals(1, posts("/slack/response/cmd-replayed", r -> true).size(), "the command ran once");
        assertEquals(1, posts("/slack/response/click-replayed", r -> true).size(), "the click ran once");
    }

    @Test
    void aTeamsActivityRunsOnceAndOnlyWhileItsTimestampIsFresh() {
        String body = activity("<at>acceltriage</at> help", ChatTestProfile.TEAMS_APPROVER, "f:replayed-" + UUID.randomUUID(), Instant.now());
        teams(body, ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("investigate pod"));
        teams(body, ChatTestProfile.TEAMS_TOKEN).then().statusCode(409).body("error", containsString("replay"));

        String old = activity("<at>acceltriage</at> help", ChatTestProfile.TEAMS_APPROVER, "f:from-2019", Instant.parse("2019-04-04T02:12:25Z"));
        teams(old, ChatTestProfile.TEAMS_TOKEN).then().statusCode(401).body("error", containsString("5 minutes"));
        String future = activity("<at>acceltriage</at> help", ChatTestProfile.TEAMS_APPROVER, "f:from-later", Instant.now().plusSeconds(3600));
        teams(future, ChatTestProfile.TEAMS_TOKEN).then().statusCode(401);
        String undated = body.replaceAll("\"timestamp\":\"[^\"]*\",", "").replace("f:replayed-", "f:undated-");
        teams(undated, ChatTestProfile.TEAMS_TOKEN).then().statusCode(400).body("error", containsString("timestamp"));
    }

    @Test
    void anApproverResetsTheStoredBreakerFromSlackAndTheAuditNamesThem() {
        breaker.trip("ChatChannelsTest: tripped to be reset from chat");
        try {
            slack("/api/v1/slack/commands", form("command", "/triage", "text", "reset breaker", "user_id", ChatTestProfile.SLACK_APPROVER,
                    "response_url", fake() + "/slack/response/cmd-reset-breaker"), FORM, now(), ChatTestProfile.SLACK_SECRET, null)
                    .then().statusCode(200);
            String answer = awaitOne("/slack/response/cmd-reset-breaker", r -> true).json().path("text").asText();
            assertTrue(answer.contains("Circuit breaker reset by " + ChatTestProfile.SLACK_APPROVER), answer);
            assertTrue(breaker.tripped().isEmpty(), "the stored breaker is reset");
            assertTrue(auditReader.find(new AuditQuery(null, AuditKind.BREAKER_RESET, ChatTestProfile.SLACK_APPROVER, null, null, null,
                    null, 100)).stream().anyMatch(r -> r.payload().path("trippedFor").asText().startsWith("ChatChannelsTest")));
        } finally {
            breaker.reset("ChatChannelsTest");
        }
    }

    // ---- Slack: buttons ----

    @Test
    void anApproveButtonRunsThePendingActionForANamedApproverAndNotForAnyoneElse() {
        // A real pending action: cordon a sandbox node, waiting for a person.
        String action = "act-slackpend1";
        String incident = "inc-chat-slack-approve";
        pendingAction(action, incident, "cordon-node", "gpu-h100-08");
        slack("/api/v1/slack/interactions", click("U0STRANGER", "approve", action, "click-stranger"), FORM, now(),
                ChatTestProfile.SLACK_SECRET, null).then().statusCode(200);
        String refused = awaitOne("/slack/response/click-stranger", r -> true).json().path("text").asText();
        assertTrue(refused.contains("only the people the policy names as approvers may approve"), refused);
        assertEquals("AWAITING_APPROVAL", actionStatus(action), "a stranger's click changes nothing");

        for (Response wrong : wronglySigned("/api/v1/slack/interactions",
                click(ChatTestProfile.SLACK_APPROVER, "approve", action, "click-forged"), FORM)) {
            wrong.then().statusCode(401);
        }
        assertEquals("AWAITING_APPROVAL", actionStatus(action), "a forged click changes nothing");

        slack("/api/v1/slack/interactions", click(ChatTestProfile.SLACK_APPROVER, "approve", action, "click-approver"),
                FORM, now(), ChatTestProfile.SLACK_SECRET, null).then().statusCode(200);
        String approver = awaitOne("/slack/response/click-approver", r -> true).json().path("text").asText();
        assertFalse(approver.contains("only the people"), approver);
        assertEquals("SUCCEEDED", actionStatus(action), "the named approver's click ran the cordon: " + approver);
        assertTrue(Boolean.TRUE.equals(cluster.nodes().withName("gpu-h100-08").get().getSpec().getUnschedulable()),
                "gpu-h100-08 is cordoned in the cluster");
        assertTrue(audit(null, AuditKind.ACCESS_DENIED).stream().anyMatch(a -> a.actor().equals("U0STRANGER")),
                "the refusal is audited");
        sleep(500);
        assertTrue(posts("/slack/response/click-forged", r -> true).isEmpty(), "a wrongly signed click does nothing");
    }

    // ---- Teams: outgoing webhook ----

    @Test
    void teamsIsAnsweredInTheResponseWhenSignedAndRefusedOtherwise() {
        String body = activity("<at>acceltriage</at> help", ChatTestProfile.TEAMS_APPROVER);
        teams(body, ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("type", equalTo("message"))
                .body("text", containsString("investigate pod"));
        teams(body.replace("help", "reset breaker"), teamsHeader(ChatTestProfile.TEAMS_TOKEN, body))
                .then().statusCode(401);
        String otherToken = Base64.getEncoder().encodeToString("another-token".getBytes(StandardCharsets.UTF_8));
        teams(body, teamsHeader(otherToken, body)).then().statusCode(401);
        given().contentType("application/json").body(body).post("/api/v1/teams/messages").then().statusCode(401);
    }

    @Test
    void teamsApprovalsAndSilencesAreForTheNamedApproversAndSilencesAreBoundedAndAboutASubject() {
        String stranger = "0b5e1c2d-0000-4000-8000-000000000001";
        teams(activity("<at>acceltriage</at> approve act-0002", stranger), ChatTestProfile.TEAMS_TOKEN).then().statusCode(200)
                .body("text", containsString("only the people the policy names as approvers may approve"));
        // Anyone who can mention the bot used to silence any alert; now only approvers, about one subject, within the policy's bound.
        teams(activity("<at>acceltriage</at> silence GpuXidError node=gpu-h100-04 for 2h stranger", stranger),
                ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("only the people the policy names as approvers"));
        teams(activity("<at>acceltriage</at> silence GpuXidError for 2h everywhere", ChatTestProfile.TEAMS_APPROVER),
                ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("node=NAME"));
        teams(activity("<at>acceltriage</at> silence GpuXidError severity=critical for 2h everywhere", ChatTestProfile.TEAMS_APPROVER),
                ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("No silence was created"));
        teams(activity("<at>acceltriage</at> silence GpuXidError node=gpu-h100-04 for 7d week", ChatTestProfile.TEAMS_APPROVER),
                ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("at most 4h"));
        assertTrue(audit(null, AuditKind.ACCESS_DENIED).stream().anyMatch(a -> a.actor().equals(stranger)
                && a.payload().path("attempted").asText().startsWith("silence")), "the stranger's silence is refused and audited");
        sleep(300);
        assertTrue(posts("/am/api/v2/silences", r -> r.body().contains("stranger") || r.body().contains("everywhere")
                || r.body().contains("week")).isEmpty(), "no refused silence reached Alertmanager");

        teams(activity("<at>acceltriage</at> silence GpuXidError node=gpu-h100-04 for 2h board swap", ChatTestProfile.TEAMS_APPROVER),
                ChatTestProfile.TEAMS_TOKEN).then().statusCode(200).body("text", containsString("5f3c0d1e-silence"));
        JsonNode silence = awaitOne("/am/api/v2/silences", r -> r.body().contains("gpu-h100-04")).json();
        assertEquals("alertname", silence.path("matchers").path(0).path("name").asText());
        assertEquals("GpuXidError", silence.path("matchers").path(0).path("value").asText());
        assertEquals("node", silence.path("matchers").path(1).path("name").asText());
        assertTrue(silence.path("matchers").path(1).path("isEqual").asBoolean());
        assertFalse(silence.path("matchers").path(1).path("isRegex").asBoolean(true));
        assertEquals(Duration.ofHours(2), Duration.between(Instant.parse(silence.path("startsAt").asText()),
                Instant.parse(silence.path("endsAt").asText())));
        assertTrue(silence.path("createdBy").asText().contains("teams:" + ChatTestProfile.TEAMS_APPROVER));
        assertEquals("board swap", silence.path("comment").asText());
        assertTrue(audit(null, AuditKind.SILENCE).stream().anyMatch(a -> a.actor().equals(ChatTestProfile.TEAMS_APPROVER)),
                "the silence is audited as the approver");
    }

    // ---- Teams: approval links ----

    @Test
    void anApprovalLinkLeadsToASignInAndDecidesOnlyForTheSignedInApproverItNames() {
        String action = "act-linkonce1";
        pendingAction(action, "inc-chat-link-once", "cordon-node", "gpu-h100-06");
        String token = links.issue(action, ApprovalLinks.Choice.REJECT, ChatTestProfile.TEAMS_APPROVER);
        String link = "/api/v1/approvals/" + token;

        // Whoever holds the card is sent to sign in; nothing is decided, the link is not spent.
        for (Response anonymous : List.of(given().redirects().follow(false).get(link), given().redirects().follow(false).post(link))) {
            anonymous.then().statusCode(303).header("Location", "/login?next=" + URLEncoder.encode(link, StandardCharsets.UTF_8));
        }
        assertEquals("AWAITING_APPROVAL", actionStatus(action));

        // Another signed-in person — even an approver of the service — cannot use the approver's link.
        String otherPerson = session(io.acceltriage.TestAuth.APPROVER);
        given().cookie("acceltriage_session", otherPerson).get(link).then().statusCode(403).body(containsString("not yours"));
        given().cookie("acceltriage_session", otherPerson).post(link).then().statusCode(403).body(containsString("not yours"));
        assertEquals("AWAITING_APPROVAL", actionStatus(action));
        assertTrue(audit(null, AuditKind.ACCESS_DENIED).stream().anyMatch(a -> a.actor().equals("test-approver")
                && a.payload().path("action").asText().equals(action)), "the refused click is audited as who made it");

        // The approver it names, signed in: GET shows (twice, acting never), POST decides once, as them.
        String approver = session(ChatTestProfile.TEAMS_APPROVER_TOKEN);
        given().cookie("acceltriage_session", approver).get(link).then().statusCode(200).body(containsString("method=\"post\""));
        given().cookie("acceltriage_session", approver).get(link).then().statusCode(200);
        assertEquals("AWAITING_APPROVAL", actionStatus(action));
        String done = given().cookie("acceltriage_session", approver).post(link).then().statusCode(200).extract().asString();
        assertTrue(done.contains("Rejected " + action), done);
        assertEquals("REJECTED", actionStatus(action));
        assertTrue(audit(null, AuditKind.APPROVAL).stream().anyMatch(a -> a.actor().equals(ChatTestProfile.TEAMS_APPROVER)
                && a.payload().path("action").asText().equals(action)), "the decision is audited as the signed-in approver");
        given().cookie("acceltriage_session", approver).post(link).then().statusCode(410).body(containsString("works once"));

        String other = links.issue("act-0004", ApprovalLinks.Choice.APPROVE, ChatTestProfile.TEAMS_APPROVER);
        String spliced = other.substring(0, other.indexOf('.')) + token.substring(token.indexOf('.'));
        given().get("/api/v1/approvals/" + spliced).then().statusCode(403).body(containsString("signature"));
        given().cookie("acceltriage_session", approver).post("/api/v1/approvals/" + spliced).then().statusCode(403);
        given().post("/api/v1/approvals/not-a-token").then().statusCode(403);
    }

    @Test
    void anApprovalLinkIssuedToSomeoneThePolicyDoesNotNameDoesNothing() {
        // test-approver signs in, but the chat policy does not name them.
        String token = links.issue("act-0005", ApprovalLinks.Choice.APPROVE, "test-approver");
        given().cookie("acceltriage_session", session(io.acceltriage.TestAuth.APPROVER)).post("/api/v1/approvals/" + token)
                .then().statusCode(200).body(containsString("only the people the policy names as approvers may approve"));
    }

    /** A login session for the holder of {@code token}, as the login form gives it. */
    static String session(String token) {
        return given().redirects().follow(false).contentType(FORM).formParam("token", token).formParam("next", "/")
                .post("/login").then().statusCode(303).extract().cookie("acceltriage_session");
    }

    // ---- notifications ----

    @Test
    void anIncidentIsOneSlackMessageUpdatedInPlaceAndOneTeamsCardPerState() {
        String id = "inc-chat-one";
        escalations.tell(notice(id, "escalated", List.of("replace GPU 3 of gpu-h100-11")));
        FakeChat.Received first = awaitOne("/slack/api/chat.postMessage", r -> r.body().contains(id));
        JsonNode posted = first.json();
        assertEquals(ChatTestProfile.CHANNEL, posted.path("channel").asText());
        String section = posted.path("blocks").path(0).path("text").path("text").asText();
        assertTrue(section.contains("replace GPU 3 of gpu-h100-11") && section.contains("device")
                && section.contains("https://acceltriage.example.test/incidents/" + id), section);
        JsonNode card = awaitOne("/teams/workflow", r -> r.body().contains(id)).json();
        assertEquals("message", card.path("type").asText());
        JsonNode content = card.path("attachments").path(0).path("content");
        assertEquals("application/vnd.microsoft.card.adaptive", card.path("attachments").path(0).path("contentType").asText());
        assertEquals("AdaptiveCard", content.path("type").asText());
        assertEquals("1.4", content.path("version").asText());
        assertEquals("https://acceltriage.example.test/incidents/" + id, content.path("actions").path(0).path("url").asText());

        // More alerts, same state: the Slack message is updated, Teams is not told again.
        escalations.tell(notice(id, "escalated", List.of("replace GPU 3 of gpu-h100-11")));
        escalations.tell(notice(id, "resolved", List.of()));
        String ts = posted.path("ts").asText(null) == null ? null : posted.path("ts").asText();
        List<FakeChat.Received> threadLine = awaitN("/slack/api/chat.postMessage", r -> r.body().contains(id)
                && r.json().has("thread_ts"), 1);
        String messageTs = threadLine.get(0).json().path("thread_ts").asText();
        List<FakeChat.Received> updates = posts("/slack/api/chat.update", r -> r.body().contains(id));
        assertEquals(2, updates.size(), "each later notice updates the one message");
        assertTrue(updates.stream().allMatch(u -> u.json().path("ts").asText().equals(messageTs)));
        assertTrue(ts == null || ts.equals(messageTs));
        assertEquals(2, posts("/slack/api/chat.postMessage", r -> r.body().contains(id)).size(),
                "one message and one thread line for the change to resolved, not one per notice");
        awaitN("/teams/workflow", r -> r.body().contains(id), 2);
        sleep(500);
        assertEquals(2, posts("/teams/workflow", r -> r.body().contains(id)).size(), "a card per state, not per notice");
    }

    @Test
    void aMessageTakenOverFromADeadSenderIsPostedOnlyWhenSlackDoesNotHaveItYet() {
        // Two incidents' first notices, each claimed by a sender that then died: one had reached Slack before it
        // died (the fake holds its post, marked with the outbox id), the other had not.
        String reached = "inc-chat-retaken-reached";
        String lost = "inc-chat-retaken-lost";
        long reachedId = queueClaimedByTheDead(reached);
        long lostId = queueClaimedByTheDead(lost);
        String deadPost = FakeChat.slack(fake(), "chat.postMessage", "{\"channel\":\"" + ChatTestProfile.CHANNEL
                + "\",\"text\":\"" + reached + " escalated\",\"metadata\":{\"event_type\":\"acceltriage_message\","
                + "\"event_payload\":{\"outbox_id\":" + reachedId + "}}}").path("ts").asText();
        expireTheDeadClaims(reached, lost);

        // The one that reached Slack is found in the channel's history and updated in place, not posted again.
        FakeChat.Received update = awaitOne("/slack/api/chat.update", r -> r.body().contains(reached));
        assertEquals(deadPost, update.json().path("ts").asText());
        FakeChat.Received look = awaitOne("/slack/api/conversations.history", r -> r.body().contains("channel=" + ChatTestProfile.CHANNEL));
        assertTrue(look.body().contains("include_all_metadata=true") && look.body().contains("oldest="), look.body());
        assertEquals(1, posts("/slack/api/chat.postMessage", r -> r.body().contains(reached)).size(), "posted again");
        JsonNode recorded = awaitAudit(reached, p -> p.path("channel").asText().equals("slack"));
        assertTrue(recorded.path("delivered").asBoolean(), recorded.toString());
        assertTrue(recorded.path("detail").asText().startsWith("already posted by dead-replica/0"), recorded.toString());

        // The one that had not is posted, once, marked with its outbox id.
        FakeChat.Received posted = awaitOne("/slack/api/chat.postMessage", r -> r.body().contains(lost));
        assertEquals(lostId, posted.json().path("metadata").path("event_payload").path("outbox_id").asLong());
        assertEquals("acceltriage_message", posted.json().path("metadata").path("event_type").asText());
        sleep(500);
        assertEquals(1, posts("/slack/api/chat.postMessage", r -> r.body().contains(lost)).size());
    }

    /** Queues the first Slack notice of {@code incident} as claimed by a sender that died (its claim still runs). */
    private long queueClaimedByTheDead(String incident) {
        return database.transaction(tx -> {
            // The claim lock first: this replica's sender must not claim it between the insert and the dead claim.
            io.acceltriage.store.WorkLock.hold(tx, io.acceltriage.store.WorkLock.CHAT_OUTBOX);
            assertTrue(outbox.enqueue(tx, io.acceltriage.notify.Outgoing.Draft.notice("slack", notice(incident, "escalated", List.of()))));
            return tx.sql(c -> {
                try (var ps = c.prepareStatement("update chat_outbox set claimed_by = 'dead-replica/0', claimed_until = ?,"
                        + " attempts = 1 where incident_id = ?")) {
                    ps.setTimestamp(1, java.sql.Timestamp.from(Instant.now().plusSeconds(60)));
                    ps.setString(2, incident);
                    ps.executeUpdate();
                }
                try (var ps = c.prepareStatement("select id from chat_outbox where incident_id = ?")) {
                    ps.setString(1, incident);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
        });
    }

    /** The dead sender's claims run out: this replica's sender takes them over. */
    private void expireTheDeadClaims(String... incidents) {
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("update chat_outbox set claimed_until = ? where incident_id = ?")) {
                for (String incident : incidents) {
                    ps.setTimestamp(1, java.sql.Timestamp.from(Instant.now().minusSeconds(1)));
                    ps.setString(2, incident);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    @Test
    void slacksRetryAfterIsHonouredAndTheMessageStillArrives() {
        String id = "inc-chat-429";
        FakeChat.fail(fake(), "/slack/api/chat.postMessage", 429, 1, 1);
        escalations.tell(notice(id, "escalated", List.of("look at it")));
        List<FakeChat.Received> tries = awaitN("/slack/api/chat.postMessage", r -> r.body().contains(id), 2);
        assertTrue(tries.get(1).at() - tries.get(0).at() >= 1000, "retried before Retry-After: " + (tries.get(1).at() - tries.get(0).at()));
        JsonNode delivered = awaitAudit(id, p -> p.path("channel").asText().equals("slack") && p.path("attempts").asInt() == 2);
        assertTrue(delivered.path("delivered").asBoolean(), delivered.toString());
    }

    @Test
    void teamsGetsAtMostFourMessagesASecond() {
        for (int i = 0; i < 6; i++) {
            escalations.tell(notice("inc-chat-rate-" + i, "escalated", List.of()));
        }
        List<FakeChat.Received> cards = awaitN("/teams/workflow", r -> r.body().contains("inc-chat-rate-"), 6);
        for (int i = 0; i + 4 < cards.size(); i++) {
            long span = cards.get(i + 4).at() - cards.get(i).at();
            assertTrue(span >= 980, "five cards within " + span + " ms");
        }
    }

    @Test
    void aSandboxFaultReachesSlackAndTeamsWithItsEvidence() {
        // The sandbox and the incidents API need an operator's token; the chat endpoints their own signatures.
        io.acceltriage.TestAuth.asAdmin();
        try {
            sandboxFaultReachesSlackAndTeams();
        } finally {
            io.acceltriage.TestAuth.signOut();
        }
    }

    private void sandboxFaultReachesSlackAndTeams() {
        given().post("/api/v1/sandbox/reset").then().statusCode(200);
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-09\",\"gpu\":1,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202);
        FakeChat.Received m = awaitOne("/slack/api/chat.postMessage", r -> r.body().contains("gpu-h100-09")
                && r.json().path("channel").asText().equals(ChatTestProfile.CHANNEL));
        String text = m.json().path("blocks").path(0).path("text").path("text").asText();
        assertTrue(text.contains("XID 79") && text.contains("Key evidence") && text.contains("cordon-node"), text);
        JsonNode card = awaitOne("/teams/workflow", r -> r.body().contains("gpu-h100-09")).json()
                .path("attachments").path(0).path("content");
        // Evidence quotes the cluster (log lines, labels): shown as TextRuns, never as Markdown a label could turn into a link.
        assertTrue(card.path("body").toString().contains("Key evidence"), card.toString());
        for (JsonNode element : card.path("body")) {
            assertTrue(!element.path("type").asText().equals("TextBlock"), "no Markdown TextBlock on the card: " + element);
        }

        // The same incident from chat: its status, why its cordon ran, and a fresh look at the node.
        String incident = given().queryParam("node", "gpu-h100-09").get("/api/v1/incidents").then().extract().path("items[0].id");
        String action = given().get("/api/v1/incidents/" + incident).then().extract()
                .path("actions.find { it.kind == 'cordon-node' }.id");
        String status = command("status incident " + incident, "sandbox-status");
        assertTrue(status.contains(incident) && status.contains(action), status);
        String why = command("why " + action, "sandbox-why");
        assertTrue(why.contains("policy: allow by rule") && why.contains("action.finished"), why);
        String look = command("investigate node gpu-h100-09", "sandbox-investigate");
        assertTrue(look.contains("device") && look.contains("changes nothing"), look);
    }

    /** A signed /triage command; returns the answer posted to its response_url. */
    static String command(String text, String responsePath) {
        slack("/api/v1/slack/commands", form("command", "/triage", "text", text, "user_id", "U0SOMEONE",
                "response_url", fake() + "/slack/response/" + responsePath), FORM, now(), ChatTestProfile.SLACK_SECRET, null)
                .then().statusCode(200);
        return awaitOne("/slack/response/" + responsePath, r -> true).json().path("text").asText();
    }

    @Test
    void aPendingActionGetsSlackButtonsAndTeamsLinksThatLeadToAConfirmationPage() {
        String id = "inc-chat-pending";
        String action = "act-chatpend1";
        pendingAction(action, id, "drain-node", "gpu-h100-12");
        escalations.tell(notice(id, "awaiting_approval", List.of()));

        JsonNode slackMessage = awaitOne("/slack/api/chat.postMessage", r -> r.body().contains(id)).json();
        assertTrue(slackMessage.path("blocks").toString().contains("\"action_id\":\"approve\",\"value\":\"" + action + "\""),
                slackMessage.path("blocks").toString());
        JsonNode card = awaitOne("/teams/workflow", r -> r.body().contains(id)).json().path("attachments").path(0).path("content");
        String approveUrl = null;
        for (JsonNode a : card.path("actions")) {
            if (a.path("title").asText().startsWith("Approve " + action)) approveUrl = a.path("url").asText();
        }
        assertTrue(approveUrl != null && approveUrl.startsWith("https://acceltriage.example.test/api/v1/approvals/"), card.toString());
        String path = approveUrl.substring("https://acceltriage.example.test".length());
        String approver = session(ChatTestProfile.TEAMS_APPROVER_TOKEN);
        given().cookie("acceltriage_session", approver).get(path).then().statusCode(200).body(containsString("drain-node"))
                .body(containsString("method=\"post\"")).body(containsString(ChatTestProfile.TEAMS_APPROVER));
        String done = given().cookie("acceltriage_session", approver).post(path).then().statusCode(200).extract().asString();
        assertTrue(done.contains(action), done);
        assertTrue(auditReader.find(new AuditQuery(null, null, null, null, null, "xoxb-test-token", null, 10)).isEmpty()
                && auditReader.find(new AuditQuery(null, null, null, null, null, ChatTestProfile.SLACK_SECRET, null, 10)).isEmpty(),
                "no secret in the audit log");
    }

    @Inject
    io.fabric8.kubernetes.client.KubernetesClient cluster;

    // ---- helpers ----

    /** An action waiting for a person, as the executor records an `approve` verdict. */
    void pendingAction(String action, String incident, String kind, String node) {
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("insert into actions (id, idempotency_key, incident_id, kind, target, decision,"
                    + " status, dry_run, detail, created_at, updated_at) values (?,?,?,?,?,?,?,?,?,?,?)")) {
                java.sql.Timestamp now = java.sql.Timestamp.from(Instant.now());
                Object[] v = {action, incident + "|" + kind + ":" + node, incident, kind, node, "approve",
                        "AWAITING_APPROVAL", false, kind + " needs a person's approval", now, now};
                for (int i = 0; i < v.length; i++) ps.setObject(i + 1, v[i]);
                ps.executeUpdate();
            }
            return null;
        });
    }

    String actionStatus(String id) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select status from actions where id = ?")) {
                ps.setString(1, id);
                try (var rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        });
    }

    static Notice notice(String id, String event, List<String> todo) {
        return new Notice(id, event, "node:gpu-h100-11", "device", 0.92, "DEVICE fault on node:gpu-h100-11 (confidence 0.92).",
                todo, "/incidents/" + id);
    }

    static String fake() {
        String api = ConfigProvider.getConfig().getValue("acceltriage.slack.api-url", String.class);
        return api.substring(0, api.indexOf("/slack/api"));
    }

    static long now() {
        return Instant.now().getEpochSecond();
    }

    static Response slack(String path, String body, String type, long ts, String secret, String retryNum) {
        var req = given().contentType(type).header("X-Slack-Request-Timestamp", Long.toString(ts))
                .header("X-Slack-Signature", "v0=" + hmacHex(secret, "v0:" + ts + ":" + body));
        if (retryNum != null) {
            req = req.header("X-Slack-Retry-Num", retryNum).header("X-Slack-Retry-Reason", "http_timeout");
        }
        return req.body(body).post(path);
    }

    /** A tampered body, a stale timestamp, a wrong secret, no signature: each must be refused. */
    static List<Response> wronglySigned(String path, String body, String type) {
        long ts = now();
        String sig = "v0=" + hmacHex(ChatTestProfile.SLACK_SECRET, "v0:" + ts + ":" + body);
        Response tampered = given().contentType(type).header("X-Slack-Request-Timestamp", Long.toString(ts))
                .header("X-Slack-Signature", sig).body(body + " ").post(path);
        Response stale = slack(path, body, type, ts - 6 * 60, ChatTestProfile.SLACK_SECRET, null);
        Response wrongSecret = slack(path, body, type, ts, "not-the-signing-secret", null);
        Response unsigned = given().contentType(type).body(body).post(path);
        return List.of(tampered, stale, wrongSecret, unsigned);
    }

    static Response teams(String body, String tokenOrHeader) {
        String header = tokenOrHeader.startsWith("HMAC ") ? tokenOrHeader : teamsHeader(tokenOrHeader, body);
        return given().contentType("application/json").header("Authorization", header)
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/api/v1/teams/messages");
    }

    static String teamsHeader(String token, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(token), "HmacSHA256"));
            return "HMAC " + Base64.getEncoder().encodeToString(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh activity: its own id, sent now (Teams' replay protection refuses stale and repeated ones). */
    static String activity(String text, String aadObjectId) {
        return activity(text, aadObjectId, "f:" + UUID.randomUUID(), Instant.now());
    }

    static String activity(String text, String aadObjectId, String id, Instant sent) {
        return "{\"type\":\"message\",\"id\":\"" + id + "\",\"timestamp\":\"" + sent + "\","
                + "\"serviceUrl\":\"https://smba.trafficmanager.net/emea/\",\"channelId\":\"msteams\",\"from\":{\"id\":\"29:1abc\","
                + "\"name\":\"Pat Doe\",\"aadObjectId\":\"" + aadObjectId + "\"},\"conversation\":{\"id\":\"19:x@thread.skype\"},"
                + "\"text\":\"" + text + "\",\"textFormat\":\"plain\",\"entities\":[]}";
    }

    static String click(String user, String action, String value, String responsePath) {
        String payload = "{\"type\":\"block_actions\",\"user\":{\"id\":\"" + user + "\",\"name\":\"someone\"},"
                + "\"response_url\":\"" + fake() + "/slack/response/" + responsePath + "\",\"actions\":[{\"action_id\":\""
                + action + "\",\"block_id\":\"approval-" + value + "\",\"value\":\"" + value + "\",\"type\":\"button\"}]}";
        return form("payload", payload);
    }

    static String form(String... kv) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < kv.length; i += 2) {
            if (b.length() > 0) b.append('&');
            b.append(URLEncoder.encode(kv[i], StandardCharsets.UTF_8)).append('=').append(URLEncoder.encode(kv[i + 1], StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    static String hmacHex(String key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static List<FakeChat.Received> posts(String prefix, Predicate<FakeChat.Received> filter) {
        return FakeChat.recorded(fake(), prefix).stream().filter(filter).toList();
    }

    static FakeChat.Received awaitOne(String prefix, Predicate<FakeChat.Received> filter) {
        return awaitN(prefix, filter, 1).get(0);
    }

    static List<FakeChat.Received> awaitN(String prefix, Predicate<FakeChat.Received> filter, int n) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (Instant.now().isBefore(deadline)) {
            List<FakeChat.Received> found = posts(prefix, filter);
            if (found.size() >= n) {
                return found;
            }
            sleep(100);
        }
        throw new AssertionError("the fake did not receive " + n + " matching request(s) on " + prefix + " within 30 s; it has "
                + FakeChat.recorded(fake(), prefix).stream().map(FakeChat.Received::body).toList());
    }

    List<AuditRecord> audit(String incidentId, AuditKind kind) {
        return auditReader.find(new AuditQuery(incidentId, kind, null, null, null, null, null, 1000));
    }

    JsonNode awaitAudit(String incidentId, Predicate<JsonNode> filter) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (Instant.now().isBefore(deadline)) {
            for (AuditRecord r : audit(incidentId, AuditKind.NOTIFICATION)) {
                if (filter.test(r.payload())) {
                    return r.payload();
                }
            }
            sleep(100);
        }
        throw new AssertionError("no matching notification record for " + incidentId);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
