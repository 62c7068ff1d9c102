package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Delivers a sandbox alert the way Alertmanager would: a version 4 webhook payload POSTed to this
 * service's own alert endpoint, with the bearer token production uses.
 */
@ApplicationScoped
class AlertWebhook {

    /** What became of a delivery; a failure is reported, never thrown. */
    record Delivery(boolean delivered, String error) {
    }

    private static final String[] GROUP_BY = {"alertname", "node", "namespace", "pod"};

    private final LocalHttpPort port;
    private final Optional<String> token;
    /** The production webhook: the sandbox's alerts take the PATH Alertmanager's do. */
    private static final String PATH = "/api/v1/alerts";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Inject
    AlertWebhook(LocalHttpPort port,
            @ConfigProperty(name = "acceltriage.alertmanager.token") Optional<String> token) {
        this.port = port;
        this.token = token.filter(t -> !t.isBlank());
    }

    Delivery deliver(FiredAlert alert) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.port() + PATH))
                    .timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "Alertmanager/0.25.0")
                    .POST(HttpRequest.BodyPublishers.ofString(payload(alert).toString()));
            token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                return new Delivery(true, null);
            }
            return new Delivery(false, "POST " + PATH + " answered " + response.statusCode() + ": "
                    + abbreviate(response.body()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Delivery(false, "interrupted while delivering to " + PATH);
        } catch (Exception e) {
            return new Delivery(false, "POST " + PATH + " failed: " + e);
        }
    }

    static ObjectNode payload(FiredAlert alert) {
        Map<String, String> groupLabels = new TreeMap<>();
        for (String label : GROUP_BY) {
            if (alert.labels().containsKey(label)) {
                groupLabels.put(label, alert.labels().get(label));
            }
        }
        ObjectNode payload = ObjectStore.JSON.createObjectNode();
        payload.put("receiver", "sandbox");
        payload.put("status", alert.status());
        payload.putArray("alerts").add(ObjectStore.JSON.valueToTree(alert));
        payload.set("groupLabels", ObjectStore.JSON.valueToTree(groupLabels));
        payload.set("commonLabels", ObjectStore.JSON.valueToTree(alert.labels()));
        payload.set("commonAnnotations", ObjectStore.JSON.valueToTree(alert.annotations()));
        payload.put("externalURL", "http://alertmanager-main.monitoring.svc:9093");
        payload.put("version", "4");
        payload.put("groupKey", "{}/{severity=~\"warning|critical\"}:" + groupLabels.entrySet().stream()
                .map(e -> e.getKey() + "=\"" + e.getValue() + "\"").collect(Collectors.joining(", ", "{", "}")));
        payload.put("truncatedAlerts", 0);
        return payload;
    }

    private static String abbreviate(String body) {
        return body == null ? "" : body.length() > 300 ? body.substring(0, 300) + "…" : body;
    }
}
