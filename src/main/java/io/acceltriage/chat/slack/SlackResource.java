package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.chat.ChatUser;
import io.acceltriage.chat.ChatWork;
import io.acceltriage.chat.Conversation;
import io.acceltriage.chat.SeenRequests;
import io.acceltriage.http.ErrorBody;
import io.acceltriage.store.Json;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Slack's three ways in: the Events API (mentions and direct messages), the {@code /triage} slash
 * command and button clicks. Every request is signature-checked over its raw bytes before anything
 * else, acknowledged at once (Slack gives 3 s), and worked on after; the answer goes to the thread
 * with chat.postMessage, or to the request's response_url.
 */
@Path("/api/v1/slack")
class SlackResource {

    private static final Logger LOG = Logger.getLogger(SlackResource.class);

    private final SlackSignature signature;
    private final SeenRequests seen;
    private final Conversation conversation;
    private final ChatWork work;
    private final SlackPoster poster;

    SlackResource(SlackConfig config, SeenRequests seen, Conversation conversation, ChatWork work, SlackPoster poster) {
        this.signature = new SlackSignature(config.signingSecret(), Clock.systemUTC());
        this.seen = seen;
        this.conversation = conversation;
        this.work = work;
        this.poster = poster;
    }

    @POST
    @Path("events")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response events(@HeaderParam("X-Slack-Request-Timestamp") String timestamp,
            @HeaderParam("X-Slack-Signature") String sig, @HeaderParam("X-Slack-Retry-Num") String retryNum,
            @HeaderParam("X-Slack-Retry-Reason") String retryReason, byte[] body) {
        String refusal = signature.refusal(timestamp, sig, body);
        if (refusal != null) {
            return unauthorized(refusal);
        }
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(body);
        } catch (java.io.IOException e) {
            return badRequest("the body is not JSON");
        }
        if (json == null || !json.isObject()) {
            return badRequest("the body is not a JSON object");
        }
        String type = json.path("type").asText();
        if ("url_verification".equals(type)) {
            return Response.ok(Map.of("challenge", json.path("challenge").asText())).build();
        }
        if (!"event_callback".equals(type)) {
            return Response.ok(Map.of("ignored", "type " + type)).build();
        }
        String eventId = json.path("event_id").asText("");
        if (eventId.isEmpty()) {
            return badRequest("event_callback without event_id");
        }
        if (retryNum != null) {
            LOG.infof("Slack re-delivers event %s (retry %s, %s)", eventId, retryNum, retryReason);
        }
        if (!seen.first(eventId)) {
            return Response.ok(Map.of("duplicate", eventId)).build();
        }
        JsonNode event = json.path("event");
        String eventType = event.path("type").asText();
        boolean mention = "app_mention".equals(eventType);
        boolean directMessage = "message".equals(eventType) && "im".equals(event.path("channel_type").asText());
        // Our own messages, edits and other subtypes come back as events too; answering them would loop.
        if (!(mention || directMessage) || event.hasNonNull("bot_id") || event.hasNonNull("subtype")) {
            return Response.ok(Map.of("ignored", eventType)).build();
        }
        ChatUser user = new ChatUser("slack", event.path("user").asText(), null);
        String channel = event.path("channel").asText();
        String threadTs = event.hasNonNull("thread_ts") ? event.path("thread_ts").asText()
                : mention ? event.path("ts").asText(null) : null;
        String text = plain(event.path("text").asText(""));
        if (!work.run(() -> poster.reply(channel, threadTs, conversation.answer(user, text)))) {
            poster.reply(channel, threadTs, "I am too busy right now; ask again in a minute.");
        }
        return Response.ok(Map.of("accepted", eventId)).build();
    }

    @POST
    @Path("commands")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response commands(@HeaderParam("X-Slack-Request-Timestamp") String timestamp,
            @HeaderParam("X-Slack-Signature") String sig, byte[] body) {
        String refusal = signature.refusal(timestamp, sig, body);
        if (refusal != null) {
            return unauthorized(refusal);
        }
        Map<String, String> form;
        try {
            form = FormBody.parse(body);
        } catch (FormBody.Malformed e) {
            return badRequest(e.getMessage());
        }
        String responseUrl = form.get("response_url");
        String userId = form.get("user_id");
        if (responseUrl == null || responseUrl.isBlank() || userId == null || userId.isBlank()) {
            return badRequest("a slash command needs user_id and response_url");
        }
        if (!seen.first(replayKey(sig))) {
            return replayed();
        }
        ChatUser user = new ChatUser("slack", userId, form.get("user_name"));
        String text = form.getOrDefault("text", "");
        if (!work.run(() -> poster.respond(responseUrl, conversation.answer(user, text), true))) {
            return Response.ok(Map.of("response_type", "ephemeral", "text", "I am too busy right now; ask again in a minute."))
                    .build();
        }
        return Response.ok(Map.of("response_type", "ephemeral",
                "text", "On it: `" + form.getOrDefault("command", "/triage") + " " + text.replace("`", "'") + "`")).build();
    }

    @POST
    @Path("interactions")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response interactions(@HeaderParam("X-Slack-Request-Timestamp") String timestamp,
            @HeaderParam("X-Slack-Signature") String sig, byte[] body) {
        String refusal = signature.refusal(timestamp, sig, body);
        if (refusal != null) {
            return unauthorized(refusal);
        }
        String payload;
        try {
            payload = FormBody.parse(body).get("payload");
        } catch (FormBody.Malformed e) {
            return badRequest(e.getMessage());
        }
        if (payload == null) {
            return badRequest("an interaction carries its JSON in the form field payload");
        }
        JsonNode json;
        try {
            json = Json.MAPPER.readTree(payload);
        } catch (java.io.IOException e) {
            return badRequest("the payload field is not JSON");
        }
        if (!"block_actions".equals(json.path("type").asText())) {
            return Response.ok().build();
        }
        JsonNode action = json.path("actions").path(0);
        String actionId = action.path("action_id").asText();
        String value = action.path("value").asText("");
        String responseUrl = json.path("response_url").asText("");
        String userId = json.path("user").path("id").asText("");
        if (!("approve".equals(actionId) || "reject".equals(actionId)) || value.isEmpty() || responseUrl.isEmpty()
                || userId.isEmpty()) {
            return badRequest("expected an approve or reject button with a value, user.id and response_url");
        }
        if (!seen.first(replayKey(sig))) {
            return replayed();
        }
        ChatUser user = new ChatUser("slack", userId, json.path("user").path("name").asText(null));
        // Through the parser like typed text, so the value is checked as an action id.
        String said = actionId + " " + value.strip();
        if (!work.run(() -> poster.respond(responseUrl, conversation.answer(user, said), true))) {
            poster.respond(responseUrl, "I am too busy right now; click again in a minute.", false);
        }
        return Response.ok().build();
    }

    /** A message's text as the person typed it: mentions removed, Slack's three escapes undone. */
    static String plain(String text) {
        return text.replaceAll("<@[A-Z0-9]+(\\|[^>]*)?>", " ").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&").strip();
    }

    /**
     * A verified signature covers the timestamp and the body, so a second request with the same one is
     * the first sent again — a replay within the five minutes the timestamp allows (Slack itself never
     * resends a command or a click). Slack's signature is "v0=" and 64 hex digits: it fits the key.
     */
    private static String replayKey(String verifiedSignature) {
        return "slack-sig:" + verifiedSignature.trim();
    }

    private static Response replayed() {
        return Response.status(Response.Status.CONFLICT).entity(new ErrorBody(
                "this signed request was received before: a replay runs nothing")).build();
    }

    private static Response unauthorized(String reason) {
        return Response.status(Response.Status.UNAUTHORIZED).entity(new ErrorBody(reason)).build();
    }

    private static Response badRequest(String reason) {
        return Response.status(Response.Status.BAD_REQUEST).entity(new ErrorBody(reason)).build();
    }
}
