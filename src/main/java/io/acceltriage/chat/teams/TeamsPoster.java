package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.notify.ChatDelivery;
import io.acceltriage.notify.Outbound;
import io.acceltriage.notify.Outgoing;
import io.acceltriage.notify.Delivery;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Posts to the Teams Workflows webhook at most four times a second (Teams throttles connectors beyond
 * that), through the durable chat outbox, which retries 429 (after its Retry-After) and 5xx until they
 * go through or the outbox gives them up. This class sends the fixed cards (answers to people); the
 * incident cards are {@link TeamsNotifier}'s.
 */
@ApplicationScoped
public class TeamsPoster implements Outbound {

    static final Duration MIN_GAP = Duration.ofMillis(250);
    static final String CARD = "card";

    private final TeamsConfig config;
    private final ChatDelivery delivery;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    TeamsPoster(TeamsConfig config, ChatDelivery delivery) {
        this.config = config;
        this.delivery = delivery;
    }

    @Override
    public String channel() {
        return TeamsNotifier.CHANNEL;
    }

    @Override
    public String kind() {
        return CARD;
    }

    @Override
    public Duration minGap() {
        return MIN_GAP;
    }

    @Override
    public Delivery attempt(Outgoing m) {
        return send(Json.read(m.payload(), ObjectNode.class));
    }

    public boolean configured() {
        return config.webhookUrl().filter(u -> !u.isBlank()).isPresent();
    }

    /** Queues a fixed message. */
    public boolean post(String incidentId, String what, ObjectNode message) {
        return delivery.queue(new Outgoing.Draft(TeamsNotifier.CHANNEL, CARD, incidentId, what, Json.write(message)));
    }

    public Delivery send(ObjectNode message) {
        String url = config.webhookUrl().filter(u -> !u.isBlank()).orElse(null);
        if (url == null) {
            return Delivery.failed("ACCELTRIAGE_TEAMS_WEBHOOK_URL is not set");
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message))).build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return Delivery.retry(null, "no answer from the Teams webhook (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Delivery.retry(null, "interrupted");
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return Delivery.ok("Teams webhook answered " + status);
        }
        if (status == 429) {
            String after = response.headers().firstValue("Retry-After").orElse("1").trim();
            Duration wait;
            try {
                wait = Duration.ofSeconds(Math.max(0, Math.min(Long.parseLong(after), 3600)));
            } catch (NumberFormatException e) {
                wait = Duration.ofSeconds(1);
            }
            return Delivery.retry(wait, "Teams webhook rate limited (429)");
        }
        if (status >= 500) {
            return Delivery.retry(null, "Teams webhook answered HTTP " + status);
        }
        return Delivery.failed("Teams webhook answered HTTP " + status
                + (status == 401 || status == 403 || status == 404 ? " (check ACCELTRIAGE_TEAMS_WEBHOOK_URL)" : ""));
    }
}
