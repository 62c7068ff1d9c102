package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.config.Secret;
import io.acceltriage.notify.Delivery;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The Slack Web API calls acceltriage makes (chat.postMessage, chat.update, a response_url post, and
 * conversations.history/replies to find a message a dead sender may have posted), written against the wire protocol: the official SDK is not available here. Each call says
 * whether Slack took it, and when it did not, whether to retry and after how long.
 */
@ApplicationScoped
public class SlackApi {

    /** Slack's answer: {@code ts} and {@code channel} of the message when it was posted. */
    public record Answer(Delivery result, String ts, String channel) {}

    /** Errors that a later attempt can get past; every other {@code ok:false} is permanent. */
    private static final Set<String> TRANSIENT = Set.of("ratelimited", "service_unavailable", "fatal_error",
            "internal_error", "request_timeout");

    /** The metadata event type of every message acceltriage posts (Slack: alphanumeric, may be shown to developers). */
    static final String EVENT_TYPE = "acceltriage_message";
    static final int PAGE = 200;
    static final int MAX_PAGES = 10;

    private final SlackConfig config;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    SlackApi(SlackConfig config) {
        this.config = config;
    }

    public Answer postMessage(ObjectNode message) {
        return call("chat.postMessage", message);
    }

    public Answer update(ObjectNode message) {
        return call("chat.update", message);
    }

    /**
     * Marks {@code message} (a chat.postMessage body) as the chat outbox's message {@code outboxId}, in
     * Slack's message metadata (event_type and event_payload, not shown to people), so that a sender taking
     * over a dead sender's claim can find out whether that one's post reached Slack.
     */
    public static ObjectNode mark(ObjectNode message, long outboxId) {
        message.putObject("metadata").put("event_type", EVENT_TYPE).putObject("event_payload").put("outbox_id", outboxId);
        return message;
    }

    /**
     * Looks for the message marked as outbox message {@code outboxId}, posted since {@code since}: in the
     * history of {@code channel} (conversations.history), or in the thread of {@code threadTs} when given
     * (conversations.replies: a thread's replies are not in the channel's history). The answer's result is
     * delivered when Slack could be asked, and its {@code ts} is the message's when one was found. Bounded:
     * {@link #MAX_PAGES} pages of {@link #PAGE} messages, newest first, none older than {@code since}.
     */
    public Answer findMarked(String channel, String threadTs, long outboxId, Instant since) {
        String method = threadTs == null ? "conversations.history" : "conversations.replies";
        // A minute before: the clocks of this host and Slack's may disagree a little.
        long oldest = since.minusSeconds(60).getEpochSecond();
        String cursor = "";
        for (int page = 0; page < MAX_PAGES; page++) {
            Map<String, String> form = new LinkedHashMap<>();
            form.put("channel", channel);
            if (threadTs != null) form.put("ts", threadTs);
            form.put("oldest", oldest + ".000000");
            form.put("include_all_metadata", "true");
            form.put("limit", Integer.toString(PAGE));
            if (!cursor.isEmpty()) form.put("cursor", cursor);
            Exchange x = callForm(method, form);
            if (x.failure() != null) return x.failure();
            for (JsonNode m : x.json().path("messages")) {
                JsonNode meta = m.path("metadata");
                if (EVENT_TYPE.equals(meta.path("event_type").asText()) && meta.path("event_payload").path("outbox_id").asLong(-1) == outboxId) {
                    return new Answer(Delivery.ok(method + ": found as " + m.path("ts").asText()), m.path("ts").asText(), channel);
                }
            }
            cursor = x.json().path("response_metadata").path("next_cursor").asText("");
            if (cursor.isEmpty()) break;
        }
        return new Answer(Delivery.ok(method + ": not found"), null, channel);
    }

    /** Slack's read methods take form-encoded arguments (not all of them accept a JSON body). */
    private Exchange callForm(String method, Map<String, String> form) {
        Secret token = config.botToken().filter(t -> !t.isBlank()).map(Secret::of).orElse(null);
        if (token == null) {
            return failed(Delivery.failed("ACCELTRIAGE_SLACK_BOT_TOKEN is not set: cannot call " + method));
        }
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        String base = config.apiUrl().endsWith("/") ? config.apiUrl() : config.apiUrl() + "/";
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + method)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", "Bearer " + token.reveal())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return exchange(request, method);
    }

    /** Posts to a response_url of a slash command or an interaction (no token: the URL is the credential). */
    public Answer respond(String responseUrl, ObjectNode message) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(responseUrl)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message))).build();
        return send(request, "response_url");
    }

    private Answer call(String method, ObjectNode body) {
        Secret token = config.botToken().filter(t -> !t.isBlank()).map(Secret::of).orElse(null);
        if (token == null) {
            return new Answer(Delivery.failed("ACCELTRIAGE_SLACK_BOT_TOKEN is not set: cannot call " + method), null, null);
        }
        String base = config.apiUrl().endsWith("/") ? config.apiUrl() : config.apiUrl() + "/";
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + method)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json; charset=utf-8")
                .header("Authorization", "Bearer " + token.reveal())
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build();
        return send(request, method);
    }

    private Answer send(HttpRequest request, String what) {
        Exchange x = exchange(request, what);
        if (x.failure() != null) return x.failure();
        if (x.json() == null) {
            // response_url answers a plain "ok".
            return new Answer(Delivery.ok(what + ": " + x.plain()), null, null);
        }
        return new Answer(Delivery.ok(what + ": ok"), x.json().path("ts").asText(null), x.json().path("channel").asText(null));
    }

    /** Slack's answer to one request: {@code failure} set when Slack did not take it, else its JSON (or plain text). */
    private record Exchange(Answer failure, JsonNode json, String plain) {}

    private Exchange exchange(HttpRequest request, String what) {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return failed(Delivery.retry(null, what + ": no answer from Slack (" + e.getClass().getSimpleName() + ")"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed(Delivery.retry(null, what + ": interrupted"));
        }
        int status = response.statusCode();
        if (status == 429) {
            return failed(Delivery.retry(retryAfter(response), what + ": rate limited (429)"));
        }
        if (status >= 500) {
            return failed(Delivery.retry(null, what + ": Slack answered HTTP " + status));
        }
        if (status >= 400) {
            return failed(Delivery.failed(what + ": Slack answered HTTP " + status + " " + abbreviate(response.body())));
        }
        if (!response.headers().firstValue("Content-Type").orElse("").contains("json")) {
            return new Exchange(null, null, abbreviate(response.body()));
        }
        JsonNode json;
        try {
            json = Json.read(response.body(), JsonNode.class);
        } catch (IllegalArgumentException e) {
            return failed(Delivery.failed(what + ": Slack's answer is not JSON"));
        }
        if (json.path("ok").asBoolean(false)) {
            return new Exchange(null, json, null);
        }
        String error = json.path("error").asText("unknown_error");
        return TRANSIENT.contains(error)
                ? failed(Delivery.retry(retryAfter(response), what + ": " + error))
                : failed(Delivery.failed(what + ": " + error + hint(error)));
    }

    private static Exchange failed(Delivery d) {
        return new Exchange(new Answer(d, null, null), null, null);
    }

    static Duration retryAfter(HttpResponse<?> response) {
        String value = response.headers().firstValue("Retry-After").orElse("");
        try {
            return Duration.ofSeconds(Math.max(0, Math.min(Long.parseLong(value.trim()), 3600)));
        } catch (NumberFormatException e) {
            return Duration.ofSeconds(1);
        }
    }

    private static String hint(String error) {
        return switch (error) {
            case "invalid_auth", "not_authed", "token_revoked", "account_inactive" -> " (check ACCELTRIAGE_SLACK_BOT_TOKEN)";
            case "channel_not_found", "not_in_channel" -> " (check ACCELTRIAGE_SLACK_CHANNEL and invite the bot to it)";
            case "missing_scope" -> " (the app needs the chat:write and channels:history (private channels: groups:history) scopes)";
            default -> "";
        };
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
