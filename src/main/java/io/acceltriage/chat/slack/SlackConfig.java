package io.acceltriage.chat.slack;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

/** Slack, both ways. Unset signing secret: the Slack endpoints refuse everything. Unset channel: no notifications. */
@ConfigMapping(prefix = "acceltriage.slack")
public interface SlackConfig {

    /** The app's signing secret (ACCELTRIAGE_SLACK_SIGNING_SECRET); every inbound request is checked against it. */
    Optional<String> signingSecret();

    /** Bot token xoxb-… (ACCELTRIAGE_SLACK_BOT_TOKEN) for chat.postMessage and chat.update. */
    Optional<String> botToken();

    /** Web API base URL (ACCELTRIAGE_SLACK_API_URL); tests point it at a local fake. */
    @WithDefault("https://slack.com/api")
    String apiUrl();

    /** Channel id for incident notifications (ACCELTRIAGE_SLACK_CHANNEL); unset: Slack gets no notifications. */
    Optional<String> channel();
}
