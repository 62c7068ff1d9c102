package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.notify.DeliveryQueue.Result;
import io.acceltriage.notify.DeliveryQueue;
import io.acceltriage.store.Json;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Posts to the Teams Workflows webhook through one queue at most four times a second (Teams
 * throttles connectors beyond that), retrying 429 (after its Retry-After) and 5xx until they go through.
 */
@ApplicationScoped
public class TeamsPoster {

    static final Duration MIN_GAP = Duration.ofMillis(250);
    static final int CAPACITY = 1000;

    private final TeamsConfig config;
    private final DeliveryQueue queue;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    TeamsPoster(TeamsConfig config, AuditLog audit) {
        this.config = config;
        this.queue = new DeliveryQueue("teams", CAPACITY, MIN_GAP, audit);
    }

    public boolean configured() {
        return config.webhookUrl().filter(u -> !u.isBlank()).isPresent();
    }

    /** Queues a job that builds its message when its turn comes. */
    public boolean offer(String incidentId, String what, DeliveryQueue.Job job) {
        return queue.offer(incidentId, what, job);
    }

    /** Queues a fixed message. */
    public boolean post(String incidentId, String what, ObjectNode message) {
        return offer(incidentId, what, () -> send(message));
    }

    public Result send(ObjectNode message) {
        String url = config.webhookUrl().filter(u -> !u.isBlank()).orElse(null);
        if (url == null) {
            return Result.failed("ACCELTRIAGE_TEAMS_WEBHOOK_URL is not set");
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(message))).build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return Result.retry(null, "no answer from the Teams webhook (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.retry(null, "interrupted");
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return Result.ok("Teams webhook answered " + status);
        }
        if (status == 429) {
            String after = response.headers().firstValue("Retry-After").orElse("1").trim();
            Duration wait;
            try {
                wait = Duration.ofSeconds(Math.max(0, Math.min(Long.parseLong(after), 3600)));
            } catch (NumberFormatException e) {
                wait = Duration.ofSeconds(1);
            }
            return Result.retry(wait, "Teams webhook rate limited (429)");
        }
        if (status >= 500) {
            return Result.retry(null, "Teams webhook answered HTTP " + status);
        }
        return Result.failed("Teams webhook answered HTTP " + status
                + (status == 401 || status == 403 || status == 404 ? " (check ACCELTRIAGE_TEAMS_WEBHOOK_URL)" : ""));
    }

    @PreDestroy
    void close() {
        queue.close();
    }
}
