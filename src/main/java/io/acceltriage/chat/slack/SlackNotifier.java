package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.notify.ChatThreads;
import io.acceltriage.notify.Delivery;
import io.acceltriage.notify.IncidentMessage;
import io.acceltriage.notify.IncidentMessages;
import io.acceltriage.notify.Notice;
import io.acceltriage.notify.Outbound;
import io.acceltriage.notify.Outgoing;
import io.acceltriage.store.Json;
import io.quarkus.arc.lookup.LookupUnlessProperty;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * Incidents in a Slack channel: one message per incident, posted when it is first told and updated
 * in place (chat.update on the stored ts) after; each change of state also gets a line in the
 * message's thread, so the people following it are told. Pending approvals carry Approve and Reject
 * buttons that come back to /api/v1/slack/interactions. Exists only when a channel is configured.
 * Notices reach it through the durable chat outbox.
 */
@ApplicationScoped
@LookupUnlessProperty(name = "acceltriage.slack.channel", stringValue = "", lookupIfMissing = false)
class SlackNotifier implements Outbound {

    private static final Logger LOG = Logger.getLogger(SlackNotifier.class);
    static final String CHANNEL = "slack";
    /** Slack refuses a section text longer than this. */
    static final int MAX_SECTION = 3000;
    /** Slack takes 50 blocks a message; each pending action uses two. */
    static final int MAX_PENDING_BUTTONS = 20;

    private final SlackPoster poster;
    private final SlackConfig config;
    private final IncidentMessages messages;
    private final ChatThreads threads;
    private final Template template;

    SlackNotifier(SlackPoster poster, SlackConfig config, IncidentMessages messages, ChatThreads threads,
            @Location("chat/slack-incident.txt") Template template) {
        this.poster = poster;
        this.config = config;
        this.messages = messages;
        this.threads = threads;
        this.template = template;
        if (config.botToken().filter(t -> !t.isBlank()).isEmpty()) {
            throw new IllegalStateException("ACCELTRIAGE_SLACK_CHANNEL is set but ACCELTRIAGE_SLACK_BOT_TOKEN is not:"
                    + " set the bot token (xoxb-…) or unset the channel");
        }
    }

    @Override
    public String channel() {
        return CHANNEL;
    }

    @Override
    public String kind() {
        return Outgoing.NOTICE;
    }

    /**
     * Sent from the outbox, one message of an incident at a time, so the stored ts is the one an earlier
     * notice posted. A message taken over from a sender that died mid-send is looked for in Slack first
     * (by the outbox id in its metadata): found, it is recorded as sent rather than posted again.
     */
    @Override
    public Delivery attempt(Outgoing message) {
        Notice notice = message.notice();
        IncidentMessage m = messages.of(notice);
        String text = template.data("m", m).render().strip();
        ObjectNode body = Json.MAPPER.createObjectNode().put("text", headline(m)).put("unfurl_links", false);
        body.set("blocks", blocks(m, text));
        ChatThreads.Thread thread = threads.find(m.incidentId(), CHANNEL).orElse(null);
        String foundRoot = null;
        if (thread == null) {
            String conversation = config.channel().orElseThrow();
            SlackApi.Answer earlier = earlierPost(message, conversation, null);
            if (earlier != null && !earlier.result().delivered()) return earlier.result();
            if (earlier == null || earlier.ts() == null) {
                body.put("channel", conversation);
                SlackApi.Answer a = poster.api().postMessage(SlackApi.mark(body.deepCopy(), message.id()));
                if (a.result().delivered()) {
                    threads.save(m.incidentId(), CHANNEL, new ChatThreads.Thread(
                            a.channel() == null ? conversation : a.channel(), a.ts(), m.event()));
                }
                return a.result();
            }
            // The dead sender's post reached Slack: it is the incident's message. It says what the store said then,
            // so it is updated to what the store says now, below.
            thread = new ChatThreads.Thread(earlier.channel(), earlier.ts(), m.event());
            threads.save(m.incidentId(), CHANNEL, thread);
            foundRoot = "already posted by " + message.retakenFrom() + " (" + earlier.result().detail() + "), updated: ";
        }
        body.put("channel", thread.conversation()).put("ts", thread.messageRef());
        SlackApi.Answer updated = poster.api().update(body);
        if (!updated.result().delivered() || Objects.equals(thread.lastEvent(), m.event())) {
            return foundRoot == null || !updated.result().delivered() ? updated.result()
                    : Delivery.ok(foundRoot + updated.result().detail());
        }
        SlackApi.Answer earlier = earlierPost(message, thread.conversation(), thread.messageRef());
        if (earlier != null && !earlier.result().delivered()) return earlier.result();
        if (earlier == null || earlier.ts() == null) {
            ObjectNode line = Json.MAPPER.createObjectNode().put("channel", thread.conversation())
                    .put("thread_ts", thread.messageRef()).put("text", headline(m) + (m.todo().isEmpty() ? ""
                            : "\nA person must now: " + SlackText.mrkdwn(String.join("; ", m.todo()))));
            SlackApi.Answer threaded = poster.api().postMessage(SlackApi.mark(line, message.id()));
            if (!threaded.result().delivered()) return threaded.result();
        }
        threads.save(m.incidentId(), CHANNEL, new ChatThreads.Thread(thread.conversation(), thread.messageRef(), m.event()));
        return earlier == null || earlier.ts() == null ? Delivery.ok("chat.postMessage: ok")
                : Delivery.ok("already in the thread, posted by " + message.retakenFrom() + ": " + earlier.result().detail());
    }

    /**
     * For a message taken over from a dead sender: Slack's answer to "is it there already?" (its ts when
     * it is; not delivered when Slack could not be asked now). Null when there is nothing to look for, or
     * when Slack refuses the look for good (a channel name instead of its id, no history scope): then the
     * message is posted, at least once rather than not at all.
     */
    private SlackApi.Answer earlierPost(Outgoing message, String conversation, String threadTs) {
        if (!message.retaken()) return null;
        SlackApi.Answer found = poster.api().findMarked(conversation, threadTs, message.id(), message.queuedAt());
        if (!found.result().delivered() && !found.result().retryable()) {
            LOG.warnf("cannot look for outbox message %d in Slack before sending it again (%s): it may appear twice",
                    message.id(), found.result().detail());
            return null;
        }
        return found;
    }

    private static String headline(IncidentMessage m) {
        return m.incidentId() + " " + m.eventText() + ": " + SlackText.mrkdwn(m.subject()) + " (" + m.family() + ")";
    }

    static ArrayNode blocks(IncidentMessage m, String text) {
        ArrayNode blocks = Json.MAPPER.createArrayNode();
        blocks.addObject().put("type", "section").putObject("text").put("type", "mrkdwn")
                .put("text", text.length() > MAX_SECTION ? text.substring(0, MAX_SECTION - 1) + "…" : text);
        for (IncidentMessage.PendingAction p : m.pending().stream().limit(MAX_PENDING_BUTTONS).toList()) {
            blocks.addObject().put("type", "section").putObject("text").put("type", "mrkdwn")
                    .put("text", "*" + p.id() + "* " + p.kind() + " `" + SlackText.mrkdwn(p.target()) + "` waits for approval");
            ArrayNode elements = blocks.addObject().put("type", "actions").put("block_id", "approval-" + p.id())
                    .putArray("elements");
            elements.add(button("approve", "Approve", p.id(), "primary"));
            elements.add(button("reject", "Reject", p.id(), "danger"));
        }
        return blocks;
    }

    private static ObjectNode button(String actionId, String label, String value, String style) {
        ObjectNode b = Json.MAPPER.createObjectNode().put("type", "button").put("action_id", actionId)
                .put("value", value).put("style", style);
        b.putObject("text").put("type", "plain_text").put("text", label);
        return b;
    }
}
