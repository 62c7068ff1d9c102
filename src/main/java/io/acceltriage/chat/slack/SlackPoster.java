package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.notify.DeliveryQueue;
import io.acceltriage.store.Json;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/**
 * Everything acceltriage sends to Slack goes through this one queue, notifications and replies
 * alike, so Slack's rate limit (429 with Retry-After) holds back all of them and drops none.
 */
@ApplicationScoped
public class SlackPoster {

    static final int CAPACITY = 1000;

    private final SlackApi api;
    private final DeliveryQueue queue;

    SlackPoster(SlackApi api, AuditLog audit) {
        this.api = api;
        this.queue = new DeliveryQueue("slack", CAPACITY, Duration.ZERO, audit);
    }

    public SlackApi api() {
        return api;
    }

    /** Queues a message about an incident (null when it is about none). */
    public boolean offer(String incidentId, String what, DeliveryQueue.Job job) {
        return queue.offer(incidentId, what, job);
    }

    /** Answers in a conversation: in the thread of {@code threadTs} when given. */
    public boolean reply(String channel, String threadTs, String text) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("channel", channel).put("text", text);
        if (threadTs != null) {
            m.put("thread_ts", threadTs);
        }
        return offer(null, "reply in " + channel, () -> api.postMessage(m).result());
    }

    /** Answers a slash command or a button through its response_url. */
    public boolean respond(String responseUrl, String text, boolean visibleToChannel) {
        ObjectNode m = Json.MAPPER.createObjectNode().put("text", text)
                .put("response_type", visibleToChannel ? "in_channel" : "ephemeral").put("replace_original", false);
        return offer(null, "response_url answer", () -> api.respond(responseUrl, m).result());
    }

    @PreDestroy
    void close() {
        queue.close();
    }
}
