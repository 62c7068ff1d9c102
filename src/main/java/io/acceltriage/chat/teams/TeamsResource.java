package io.acceltriage.chat.teams;

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
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Teams outgoing webhook: people @mention acceltriage in a channel, Teams posts the message here
 * signed with HMAC and shows what we answer within 5 s. An answer that takes longer (an
 * investigation) follows as a card through the Workflows webhook when one is configured.
 */
@Path("/api/v1/teams/messages")
class TeamsResource {

    /** Teams waits 5 s; leave room for the network. */
    static final Duration ANSWER_WITHIN = Duration.ofMillis(4000);

    /** How far an activity's timestamp may be from now: Teams posts at once, so older is a replay (or a clock out of sync). */
    static final Duration FRESH_WITHIN = Duration.ofMinutes(5);

    private final TeamsSignature signature;
    private final SeenRequests seen;
    private final Conversation conversation;
    private final ChatWork work;
    private final TeamsPoster poster;

    TeamsResource(TeamsConfig config, SeenRequests seen, Conversation conversation, ChatWork work, TeamsPoster poster) {
        this.signature = new TeamsSignature(config.hmacSecret());
        this.seen = seen;
        this.conversation = conversation;
        this.work = work;
        this.poster = poster;
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response message(@HeaderParam("Authorization") String authorization, byte[] body) {
        String refusal = signature.refusal(authorization, body);
        if (refusal != null) {
            return Response.status(Response.Status.UNAUTHORIZED).entity(new ErrorBody(refusal)).build();
        }
        JsonNode activity;
        try {
            activity = Json.MAPPER.readTree(body);
        } catch (java.io.IOException e) {
            return Response.status(Response.Status.BAD_REQUEST).entity(new ErrorBody("the body is not a JSON activity")).build();
        }
        if (activity == null || !activity.isObject()) {
            return Response.status(Response.Status.BAD_REQUEST).entity(new ErrorBody("the body is not a JSON activity")).build();
        }
        // The HMAC covers the body but carries no time: the activity's own id and timestamp are what make a
        // captured request worthless later (stale) or a second time (seen).
        String activityId = activity.path("id").asText("");
        Instant sent;
        try {
            sent = java.time.OffsetDateTime.parse(activity.path("timestamp").asText("")).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            sent = null;
        }
        if (activityId.isEmpty() || sent == null) {
            return Response.status(Response.Status.BAD_REQUEST).entity(new ErrorBody(
                    "an activity carries its id and an RFC 3339 timestamp; this one lacks " + (activityId.isEmpty() ? "the id" : "the timestamp")))
                    .build();
        }
        Instant now = Instant.now();
        if (sent.isBefore(now.minus(FRESH_WITHIN)) || sent.isAfter(now.plus(FRESH_WITHIN))) {
            return Response.status(Response.Status.UNAUTHORIZED).entity(new ErrorBody("the activity's timestamp " + sent
                    + " is more than 5 minutes away from now: a replay, or a clock out of sync")).build();
        }
        if (!seen.first("teams:" + sha256(activityId))) {
            return Response.status(Response.Status.CONFLICT).entity(new ErrorBody(
                    "activity " + abbreviate(activityId) + " was received before: a replay runs nothing")).build();
        }
        JsonNode from = activity.path("from");
        String id = from.path("aadObjectId").asText(from.path("id").asText(""));
        ChatUser user = new ChatUser("teams", id, from.path("name").asText(null));
        String text = plain(activity.path("text").asText(""));
        CompletableFuture<String> answer = work.submit(() -> conversation.answer(user, text));
        if (answer == null) {
            return reply("I am too busy right now; ask again in a minute.");
        }
        try {
            return reply(answer.get(ANSWER_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            if (poster.configured()) {
                answer.thenAccept(a -> poster.post(null, "late answer to " + user.actor(), AdaptiveCards.textMessage(a)));
                return reply("Working on it; the answer follows in this channel.");
            }
            return reply("This takes longer than Teams waits for an answer; ask again in a minute.");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return reply("Interrupted; ask again.");
        } catch (ExecutionException e) {
            return reply("Sorry, that failed on my side; the service log has the details.");
        }
    }

    /** Activity ids have no stated bound; the hash fits the seen-requests key whatever their length. */
    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static Response reply(String text) {
        return Response.ok(Map.of("type", "message", "text", text)).build();
    }

    /** The text without the bot's mention and Teams' HTML: "<at>acceltriage</at> status node x" → "status node x". */
    static String plain(String html) {
        return html.replaceAll("(?is)<at>.*?</at>", " ").replaceAll("(?s)<[^>]*>", " ").replace("&nbsp;", " ")
                .replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&").strip();
    }
}
