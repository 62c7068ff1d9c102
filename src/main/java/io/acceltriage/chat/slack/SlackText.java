package io.acceltriage.chat.slack;

import io.quarkus.qute.TemplateExtension;

/** Slack's three control characters in mrkdwn; text from the cluster (log lines, names) must not form links or mentions. */
@TemplateExtension
public final class SlackText {

    private SlackText() {}

    public static String mrkdwn(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
