package io.acceltriage.chat;

import io.acceltriage.TestAuth;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * The one profile of the chat tests: Slack, Teams and Alertmanager pointed at {@link FakeChat} on
 * 127.0.0.1 (its port is only known once it runs, which the default profile cannot express), and a
 * policy that names one Slack and one Teams approver.
 */
public class ChatTestProfile implements QuarkusTestProfile {

    public static final String SLACK_SECRET = "slack-signing-secret-for-tests";
    public static final String TEAMS_TOKEN = Base64.getEncoder().encodeToString(
            "teams-outgoing-webhook-token-for-tests".getBytes(StandardCharsets.UTF_8));
    public static final String SLACK_APPROVER = "U0APPROVER";
    public static final String TEAMS_APPROVER = "6f1d3a52-9b0e-4c1f-8d3a-2e5b7c9d0a11";
    public static final String CHANNEL = "C0INCIDENTS";
    /** The Teams approver's access token: approval links decide only for the person signed in with it. */
    public static final String TEAMS_APPROVER_TOKEN = "teams-approver-token-0123456789";

    @Override
    public Map<String, String> getConfigOverrides() {
        String fake = FakeChat.start().url();
        return Map.ofEntries(
                // The default profile's tokens, and the Teams approver's, named by the Entra object id approval links name.
                Map.entry("acceltriage.access.tokens", "test-viewer:viewer:" + TestAuth.VIEWER
                        + ",test-approver:approver:" + TestAuth.APPROVER + ",test-admin:admin:" + TestAuth.ADMIN + "," + TEAMS_APPROVER + ":approver:" + TEAMS_APPROVER_TOKEN),
                Map.entry("acceltriage.slack.signing-secret", SLACK_SECRET),
                Map.entry("acceltriage.slack.bot-token", "xoxb-test-token"),
                Map.entry("acceltriage.slack.api-url", fake + "/slack/api"),
                Map.entry("acceltriage.slack.channel", CHANNEL),
                Map.entry("acceltriage.teams.hmac-secret", TEAMS_TOKEN),
                Map.entry("acceltriage.teams.webhook-url", fake + "/teams/workflow"),
                Map.entry("acceltriage.approval.signing-key", "approval-signing-key-for-the-chat-tests"),
                Map.entry("acceltriage.alertmanager.url", fake + "/am"),
                Map.entry("acceltriage.public-url", "https://acceltriage.example.test"),
                Map.entry("acceltriage.policy.file", "chat/policy.yaml"));
    }
}
