package io.acceltriage.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.acceltriage.config.KubernetesNames;
import io.acceltriage.http.BadRequests;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.incident.Fingerprints;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns a webhook body into alerts, or says exactly what is wrong with it. */
public final class AlertmanagerPayloads {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final int MAX_ALERTS = 1000;
    static final int MAX_LABELS = 64;
    static final int MAX_VALUE_LENGTH = 4096;
    // The store's column widths (db/migration): a longer value would pass here and fail the insert,
    // answering 503, which Alertmanager retries for ever.
    static final int MAX_GROUP_KEY = 2000;
    static final int MAX_URL = 2000;
    static final int MAX_ALERTNAME = 256;
    /** Kubernetes' own limit for a name; incidents store these labels as their subject. */
    static final int MAX_NAME = KubernetesNames.MAX_NAME;
    /** Labels that name a Kubernetes object (read by the correlator to find an incident's subject). */
    static final List<String> NAME_LABELS = List.of("node", "kubernetes_node", "Hostname", "hostname", "exported_node",
            "namespace", "pod", "deployment", "statefulset", "jobset", "job_name", "daemonset", "leaderworkerset");

    private AlertmanagerPayloads() {}

    public static List<Alert> parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw new InvalidPayload("empty body: expected an Alertmanager webhook payload (JSON, version 4)");
        }
        AlertmanagerPayload payload;
        try {
            payload = MAPPER.readValue(body, AlertmanagerPayload.class);
        } catch (MismatchedInputException e) {
            throw new InvalidPayload("wrong type at " + BadRequests.path(e) + ": " + firstLine(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            // A broken limit (nesting, number or string length) carries no location.
            throw new InvalidPayload("malformed JSON" + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr()) + ": " + firstLine(e.getOriginalMessage()));
        } catch (java.io.IOException e) {
            throw new InvalidPayload("unreadable body: " + e.getMessage());
        }
        if (payload == null) {
            throw new InvalidPayload("body is JSON null: expected an Alertmanager webhook payload");
        }
        if (payload.version() != null && !payload.version().equals("4")) {
            throw new InvalidPayload("unsupported payload version \"" + abbreviate(payload.version()) + "\": this endpoint speaks version 4");
        }
        if (payload.alerts() == null) {
            throw new InvalidPayload("missing field \"alerts\": expected an array of alerts");
        }
        if (payload.alerts().size() > MAX_ALERTS) {
            throw new InvalidPayload("too many alerts in one delivery: " + payload.alerts().size() + " > " + MAX_ALERTS
                    + "; lower max_alerts in the webhook_config");
        }
        String groupKey = payload.groupKey() == null ? "" : payload.groupKey();
        text(groupKey, "groupKey", MAX_GROUP_KEY);
        List<Alert> alerts = new ArrayList<>(payload.alerts().size());
        for (int i = 0; i < payload.alerts().size(); i++) {
            alerts.add(toAlert(payload.alerts().get(i), groupKey, "alerts[" + i + "]"));
        }
        return alerts;
    }

    private static Alert toAlert(AlertmanagerPayload.AlertmanagerAlert a, String groupKey, String at) {
        if (a == null) {
            throw new InvalidPayload(at + " is null");
        }
        AlertStatus status;
        try {
            status = AlertStatus.parse(a.status());
        } catch (IllegalArgumentException e) {
            throw new InvalidPayload(at + ".status must be \"firing\" or \"resolved\", got \"" + abbreviate(String.valueOf(a.status())) + "\"");
        }
        Map<String, String> labels = checked(a.labels(), at + ".labels", true);
        Map<String, String> annotations = checked(a.annotations() == null ? Map.of() : a.annotations(), at + ".annotations", false);
        if (!labels.containsKey("alertname")) {
            throw new InvalidPayload(at + ".labels has no \"alertname\"");
        }
        text(labels.get("alertname"), at + ".labels.alertname", MAX_ALERTNAME);
        for (String name : NAME_LABELS) {
            if (labels.containsKey(name)) {
                text(labels.get(name), at + ".labels." + name, MAX_NAME);
                kubernetesName(labels.get(name), name, at + ".labels." + name);
            }
        }
        if (a.generatorURL() != null) {
            text(a.generatorURL(), at + ".generatorURL", MAX_URL);
        }
        Instant startsAt = time(a.startsAt(), at + ".startsAt", true);
        Instant endsAt = time(a.endsAt(), at + ".endsAt", false);
        String fingerprint = a.fingerprint() == null || a.fingerprint().isBlank()
                ? Fingerprints.of(labels) : a.fingerprint();
        if (fingerprint.length() > 64) {
            throw new InvalidPayload(at + ".fingerprint is longer than 64 characters");
        }
        text(fingerprint, at + ".fingerprint", 64);
        return new Alert(fingerprint, groupKey, status, labels, annotations, startsAt, endsAt, a.generatorURL());
    }

    private static Map<String, String> checked(Map<String, String> map, String at, boolean required) {
        if (map == null) {
            if (required) throw new InvalidPayload("missing " + at);
            return Map.of();
        }
        if (map.size() > MAX_LABELS) {
            throw new InvalidPayload(at + " has " + map.size() + " entries; at most " + MAX_LABELS);
        }
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (e.getValue() == null) {
                throw new InvalidPayload(at + "." + abbreviate(e.getKey()) + " is null: values must be strings");
            }
            if (e.getKey().length() > 256 || e.getValue().length() > MAX_VALUE_LENGTH) {
                throw new InvalidPayload(at + "." + abbreviate(e.getKey()) + " is too long");
            }
            if (e.getKey().indexOf('\u0000') >= 0 || e.getValue().indexOf('\u0000') >= 0) {
                throw new InvalidPayload(at + "." + abbreviate(e.getKey()) + " contains a NUL character");
            }
        }
        return map;
    }

    private static Instant time(String value, String at, boolean required) {
        if (value == null || value.isBlank() || value.startsWith("0001-01-01")) {
            // Alertmanager sends the zero time for "not set" (endsAt of a firing alert).
            if (required && (value == null || value.isBlank())) {
                throw new InvalidPayload("missing " + at + ": expected an RFC 3339 time");
            }
            return null;
        }
        Instant t;
        try {
            t = java.time.OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidPayload(at + " is not an RFC 3339 time: \"" + abbreviate(value) + "\"");
        }
        if (!Rfc3339.storable(t)) {
            throw new InvalidPayload(at + " is outside the years 1 to 9999: \"" + abbreviate(value) + "\"");
        }
        return t;
    }

    /**
     * A label the service later puts in a Kubernetes API path must be a Kubernetes name: anything else
     * ("../../api/v1/sandbox/nodes?") would address another resource, or fail the triage for ever.
     * Namespaces are DNS-1123 labels; nodes, pods and workloads DNS-1123 subdomains.
     */
    private static void kubernetesName(String value, String label, String at) {
        boolean namespace = label.equals("namespace");
        int max = namespace ? KubernetesNames.MAX_LABEL : KubernetesNames.MAX_NAME;
        if (!(namespace ? KubernetesNames.isNamespace(value) : KubernetesNames.isName(value))) {
            throw new InvalidPayload(at + " \"" + abbreviate(value) + "\" is not a Kubernetes " + (namespace ? "namespace" : "name")
                    + ": expected a DNS-1123 " + (namespace ? "label" : "subdomain") + " (lower-case letters, digits, '-'"
                    + (namespace ? "" : " and '.'") + ", starting and ending with a letter or digit, at most " + max + " characters)");
        }
    }

    /** A string the store keeps as it is: within its column and without NUL, which PostgreSQL refuses. */
    private static void text(String value, String at, int max) {
        if (value.length() > max) {
            throw new InvalidPayload(at + " is " + value.length() + " characters long; at most " + max);
        }
        if (value.indexOf('\u0000') >= 0) {
            throw new InvalidPayload(at + " contains a NUL character");
        }
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return abbreviate(nl < 0 ? s : s.substring(0, nl));
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }
}
