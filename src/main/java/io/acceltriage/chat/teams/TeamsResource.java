package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.chat.ChatUser;
import io.acceltriage.chat.ChatWork;
import io.acceltriage.chat.Conversation;
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

    private final TeamsSignature signature;
    private final Conversation conversation;
    private final ChatWork work;
    private final TeamsPoster poster;

    TeamsResource(TeamsConfig config, Conversation conversation, ChatWork work, TeamsPoster poster) {
        this.signature = new TeamsSignature(config.hmacSecret());
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

    private static Response reply(String text) {
        return Response.ok(Map.of("type", "message", "text", text)).build();
    }

    /** The text without the bot's mention and Teams' HTML: "<at>acceltriage</at> status node x" → "status node x". */
    static String plain(String html) {
        return html.replaceAll("(?is)<at>.*?</at>", " ").replaceAll("(?s)<[^>]*>", " ").replace("&nbsp;", " ")
                .replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&").strip();
    }
}
