package io.acceltriage.chat.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.config.Secret;
import io.acceltriage.notify.Delivery;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;

/**
 * The three Slack Web API calls acceltriage makes (chat.postMessage, chat.update, a response_url
 * post), written against the wire protocol: the official SDK is not available here. Each call says
 * whether Slack took it, and when it did not, whether to retry and after how long.
 */
@ApplicationScoped
public class SlackApi {

    /** Slack's answer: {@code ts} and {@code channel} of the message when it was posted. */
    public record Answer(Delivery result, String ts, String channel) {}

    /** Errors that a later attempt can get past; every other {@code ok:false} is permanent. */
    private static final Set<String> TRANSIENT = Set.of("ratelimited", "service_unavailable", "fatal_error",
            "internal_error", "request_timeout");

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
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Answer(Delivery.retry(null, what + ": no answer from Slack (" + e.getClass().getSimpleName() + ")"), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(Delivery.retry(null, what + ": interrupted"), null, null);
        }
        int status = response.statusCode();
        if (status == 429) {
            return new Answer(Delivery.retry(retryAfter(response), what + ": rate limited (429)"), null, null);
        }
        if (status >= 500) {
            return new Answer(Delivery.retry(null, what + ": Slack answered HTTP " + status), null, null);
        }
        if (status >= 400) {
            return new Answer(Delivery.failed(what + ": Slack answered HTTP " + status + " " + abbreviate(response.body())), null, null);
        }
        if (!response.headers().firstValue("Content-Type").orElse("").contains("json")) {
            // response_url answers a plain "ok".
            return new Answer(Delivery.ok(what + ": " + abbreviate(response.body())), null, null);
        }
        JsonNode json;
        try {
            json = Json.read(response.body(), JsonNode.class);
        } catch (IllegalArgumentException e) {
            return new Answer(Delivery.failed(what + ": Slack's answer is not JSON"), null, null);
        }
        if (json.path("ok").asBoolean(false)) {
            return new Answer(Delivery.ok(what + ": ok"), json.path("ts").asText(null), json.path("channel").asText(null));
        }
        String error = json.path("error").asText("unknown_error");
        return TRANSIENT.contains(error)
                ? new Answer(Delivery.retry(retryAfter(response), what + ": " + error), null, null)
                : new Answer(Delivery.failed(what + ": " + error + hint(error)), null, null);
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
            case "missing_scope" -> " (the app needs the chat:write scope)";
            default -> "";
        };
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
