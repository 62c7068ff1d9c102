package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.notify.ChatDelivery;
import io.acceltriage.notify.Delivery;
import io.acceltriage.notify.Outbound;
import io.acceltriage.notify.Outgoing;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Everything acceltriage sends to Slack goes through the durable chat outbox, notifications (see
 * {@link SlackNotifier}) and replies alike, so Slack's rate limit (429 with Retry-After) holds back all
 * of them and drops none, and a restart loses none. This class sends the replies.
 */
@ApplicationScoped
public class SlackPoster implements Outbound {

    static final String REPLY = "reply";

    /** A reply as queued: Slack's message, posted to chat.postMessage or, when given, to a response_url. */
    record Reply(String responseUrl, String message) {}

    private final SlackApi api;
    private final ChatDelivery delivery;

    SlackPoster(SlackApi api, ChatDelivery delivery) {
        this.api = api;
        this.delivery = delivery;
    }

    public SlackApi api() {
        return api;
    }

    @Override
    public String channel() {
        return SlackNotifier.CHANNEL;
    }

    @Override
    public String kind() {
        return REPLY;
    }

    @Override
    public Delivery attempt(Outgoing m) {
        Reply r = Json.read(m.payload(), Reply.class);
        ObjectNode message = Json.read(r.message(), ObjectNode.class);
        if (r.responseUrl() != null) {
            // A response_url keeps nothing that could be looked up: a retaken answer may appear twice.
            return api.respond(r.responseUrl(), message).result();
        }
        if (m.retaken()) {
            SlackApi.Answer found = api.findMarked(message.path("channel").asText(), message.path("thread_ts").asText(null),
                    m.id(), m.queuedAt());
            if (!found.result().delivered() && found.result().retryable()) return found.result();
            if (found.ts() != null) return Delivery.ok("already posted by " + m.retakenFrom() + ": " + found.result().detail());
        }
        return api.postMessage(SlackApi.mark(message, m.id())).result();
    }

    /** Answers in a conversation: in the thread of {@code threadTs} when given. */
    public boolean reply(String channel, String threadTs, String text) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("channel", channel).put("text", text);
        if (threadTs != null) {
            m.put("thread_ts", threadTs);
        }
        return queue("reply in " + channel, new Reply(null, Json.write(m)));
    }

    /** Answers a slash command or a button through its response_url. */
    public boolean respond(String responseUrl, String text, boolean visibleToChannel) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("text", text)
                .put("response_type", visibleToChannel ? "in_channel" : "ephemeral").put("replace_original", false);
        return queue("response_url answer", new Reply(responseUrl, Json.write(m)));
    }

    private boolean queue(String what, Reply reply) {
        return delivery.queue(new Outgoing.Draft(SlackNotifier.CHANNEL, REPLY, null, what, Json.write(reply)));
    }
}
