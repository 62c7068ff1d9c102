package io.acceltriage.incident;

import java.time.Instant;
import java.util.Map;

/**
 * One alert as Alertmanager (or the sandbox, or a scenario) reported it. Labels are the alert's
 * identity; annotations are prose for humans and never drive a decision.
 */
public record Alert(
        String fingerprint,
        String groupKey,
        AlertStatus status,
        Map<String, String> labels,
        Map<String, String> annotations,
        Instant startsAt,
        Instant endsAt,
        String generatorUrl) {

    public Alert {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
    }

    public String name() {
        return labels.getOrDefault("alertname", "");
    }

    public String label(String name) {
        String v = labels.get(name);
        return v == null || v.isBlank() ? null : v;
    }
}
