package io.acceltriage.chat.slack;

import static io.acceltriage.testing.Refused.headers;
import static io.acceltriage.testing.Refused.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditVerifier;
import io.acceltriage.chat.ChatTestProfile;
import io.acceltriage.chat.FakeChat;
import io.acceltriage.config.Secret;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import io.acceltriage.testing.RawHttp;
import io.acceltriage.testing.StoreCounts;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chat endpoints with their secrets configured (the chat tests' profile, so no extra boot): bodies
 * that are correctly signed yet broken get a 400 with a reason, and a genuine button click replayed
 * after five minutes is refused; none of it stores anything, answers in chat, or decides an action.
 */
@QuarkusTest
@TestProfile(ChatTestProfile.class)
class ChatBadInputTest {

    @Inject
    Database database;
    @Inject
    AuditVerifier verifier;
    @Inject
    Executor executor;

    RawHttp http;

    @BeforeEach
    void connect() {
        http = new RawHttp(RestAssured.port);
    }

    @Test
    void signedButBrokenSlackAndTeamsBodiesAreRefusedWithAReason() {
        String marker = "bad-input-" + UUID.randomUUID();
        StoreCounts before = StoreCounts.settled(database);
        int posted = chatPosts().size();

        // Events: not a JSON object.
        String event = "{\"type\":\"event_callback\",\"event_id\":\"Ev" + marker + "\",\"event\":{\"type\":\"app_mention\","
                + "\"user\":\"U0SOMEONE\",\"text\":\"<@U0BOT> help\",\"ts\":\"1.2\",\"channel\":\"C0" + marker + "\"}}";
        Gen.forAll(41, 150, BadInputs.jsonMutationsOf(event).filter(ChatBadInputTest::notAJsonObject), BadInputs::show,
                body -> refused(slack("/api/v1/slack/events", body), 400));

        // Commands and clicks: forms that are no form (bad escapes, not UTF-8), or clicks whose payload is not JSON.
        String command = "command=%2Ftriage&text=help&user_id=U0SOMEONE&response_url=" + enc(fake() + "/slack/response/" + marker);
        Gen<byte[]> badForms = Gen.oneOf(BadInputs.invalidUtf8(BadInputs.utf8(command)),
                BadInputs.insertions(BadInputs.utf8(command)).filter(ChatBadInputTest::notAForm),
                Gen.of("%", "text=%zz", "user_id=%F", "payload=%E2%28%A1").map(BadInputs::utf8));
        Gen.forAll(42, 80, badForms.filter(ChatBadInputTest::notAForm), BadInputs::show,
                body -> refused(slack("/api/v1/slack/commands", body), 400));
        String click = "{\"type\":\"block_actions\",\"user\":{\"id\":\"" + ChatTestProfile.SLACK_APPROVER + "\"},\"response_url\":\""
                + fake() + "/slack/response/" + marker + "\",\"actions\":[{\"action_id\":\"approve\",\"value\":\"act-0001\"}]}";
        Gen<byte[]> badClicks = Gen.oneOf(badForms, BadInputs.jsonMutationsOf(click).filter(ChatBadInputTest::notAJsonAtAll)
                .map(p -> BadInputs.utf8("payload=" + enc(new String(p, StandardCharsets.UTF_8)))));
        Gen.forAll(43, 120, badClicks.filter(ChatBadInputTest::notAForm), BadInputs::show,
                body -> refused(slack("/api/v1/slack/interactions", body), 400));

        // Teams: signed, but no JSON activity.
        String activity = "{\"type\":\"message\",\"text\":\"<at>acceltriage</at> help\",\"from\":{\"aadObjectId\":\"" + marker + "\"}}";
        Gen.forAll(44, 120, BadInputs.jsonMutationsOf(activity).filter(ChatBadInputTest::notAJsonObject), BadInputs::show,
                body -> refused(http.post("/api/v1/teams/messages", headers("Content-Type", "application/json",
                        "Authorization", teamsHeader(body)), body), 400));

        assertEquals(before, StoreCounts.of(database), "signed garbage stored or set off something");
        assertTrue(verifier.verify().intact());
        sleep(300);
        assertEquals(posted, chatPosts().size(), "signed garbage was answered in chat");
    }

    @Test
    void aGenuineClickReplayedAfterFiveMinutesDecidesNothing() {
        ActionRecord pending = executor.carryOut("inc-replay-" + UUID.randomUUID().toString().substring(0, 8),
                new Proposal(ActionKind.CORDON_NODE, "gpu-h100-14", "replay", List.of(), "replay"),
                new Verdict(Decision.APPROVE, "actions.cordon-node.decision", List.of("a person approves"), false));
        String responsePath = "replay-" + pending.id();
        byte[] click = BadInputs.utf8("payload=" + enc("{\"type\":\"block_actions\",\"user\":{\"id\":\"" + ChatTestProfile.SLACK_APPROVER
                + "\"},\"response_url\":\"" + fake() + "/slack/response/" + responsePath + "\",\"actions\":[{\"action_id\":\"approve\","
                + "\"value\":\"" + pending.id() + "\"}]}"));
        StoreCounts before = StoreCounts.settled(database);
        // As captured: signed by Slack at the time, sent again between 5 minutes and a day later.
        Gen.forAll(45, 40, Gen.between(301, 86_400), String::valueOf, age -> {
            String ts = Long.toString(Instant.now().getEpochSecond() - age);
            RawHttp.Answer a = http.post("/api/v1/slack/interactions", headers("Content-Type", "application/x-www-form-urlencoded",
                    "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0=" + SlackSignature.sign(Secret.of(ChatTestProfile.SLACK_SECRET), ts, click)),
                    click);
            refused(a, 401);
            assertTrue(a.text().contains("5 minutes"), a.text());
        });
        assertEquals(before, StoreCounts.of(database));
        assertEquals(ActionStatus.AWAITING_APPROVAL, executor.find(pending.id()).orElseThrow().status(), "the action still waits");
        sleep(300);
        assertTrue(FakeChat.recorded(fake(), "/slack/response/" + responsePath).isEmpty(), "a replayed click was answered");
    }

    RawHttp.Answer slack(String path, byte[] body) {
        String ts = Long.toString(Instant.now().getEpochSecond());
        return http.post(path, headers("Content-Type", path.endsWith("events") ? "application/json" : "application/x-www-form-urlencoded",
                "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0=" + SlackSignature.sign(Secret.of(ChatTestProfile.SLACK_SECRET), ts, body)),
                body);
    }

    static boolean notAJsonObject(byte[] body) {
        try {
            return !Json.MAPPER.readTree(body).isObject();
        } catch (Exception e) {
            return true;
        }
    }

    static boolean notAJsonAtAll(byte[] body) {
        try {
            Json.MAPPER.readTree(new String(body, StandardCharsets.UTF_8));
            return false;
        } catch (Exception e) {
            return true;
        }
    }

    /** The oracle for forms: the reader refuses it, or it lacks what the endpoint needs. */
    static boolean notAForm(byte[] body) {
        try {
            Map<String, String> f = FormBody.parse(body);
            return (f.get("user_id") == null || f.get("user_id").isBlank() || f.get("response_url") == null || f.get("response_url").isBlank())
                    && (f.get("payload") == null || notAJsonAtAll(BadInputs.utf8(f.get("payload"))));
        } catch (FormBody.Malformed e) {
            return true;
        }
    }

    static String teamsHeader(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(ChatTestProfile.TEAMS_TOKEN), "HmacSHA256"));
            return "HMAC " + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static List<FakeChat.Received> chatPosts() {
        return FakeChat.recorded(fake(), "/");
    }

    static String fake() {
        String api = ConfigProvider.getConfig().getValue("acceltriage.slack.api-url", String.class);
        return api.substring(0, api.indexOf("/slack/api"));
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
