package io.acceltriage.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.action.Decisions;
import io.acceltriage.policy.PolicySource;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Creates Alertmanager silences: {@code POST /api/v2/silences} at ACCELTRIAGE_ALERTMANAGER_URL. A
 * silence hides a fault from everyone, so it is a decision like an approval: approvers only (the rule
 * of {@link Decisions}), no longer than the policy's {@code silences.maxDuration}, and about one
 * subject — a node, a pod or a workload — never an alert name across the fleet.
 */
@ApplicationScoped
class Silences {

    /** The labels that name a subject: the ones the correlator reads an incident's subject from. */
    static final java.util.Set<String> SUBJECT_LABELS = java.util.Set.of("node", "kubernetes_node", "Hostname", "hostname",
            "exported_node", "pod", "deployment", "statefulset", "jobset", "job_name", "daemonset", "leaderworkerset");

    /** The silence's id, or why there is none. */
    record Outcome(String silenceId, Instant endsAt, String problem) {}

    private final io.acceltriage.audit.AuditLog audit;
    private final Decisions decisions;
    private final PolicySource policy;

    Silences(io.acceltriage.audit.AuditLog audit, Decisions decisions, PolicySource policy) {
        this.audit = audit;
        this.decisions = decisions;
        this.policy = policy;
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Clock clock = Clock.systemUTC();

    /** Creates the silence asked for in chat, audited; the reply says what was done. */
    String answer(ChatUser user, Command.Silence s) {
        if (!decisions.permits(user.id(), "silence " + s.matchers() + " for " + s.duration())) {
            return "Sorry" + (user.name() == null || user.name().isBlank() ? "" : " " + user.name())
                    + ", only the people the policy names as approvers may create silences.";
        }
        if (s.matchers().keySet().stream().noneMatch(SUBJECT_LABELS::contains)) {
            return "No silence was created: name what it is about with node=NAME (or pod=, deployment=, jobset=, …);"
                    + " a silence of " + s.matchers().get("alertname") + " everywhere would hide it on every node.";
        }
        Duration max = policy.current().silenceMaxDuration();
        if (s.duration().compareTo(max) > 0) {
            return "No silence was created: policy " + policy.current().name() + " allows silences from chat of at most "
                    + max.toString().substring(2).toLowerCase() + "; ask for a shorter one, or use Alertmanager.";
        }
        Silences.Outcome o = create(s, user);
        if (o.problem() != null) {
            return "No silence was created: " + o.problem();
        }
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("silence", o.silenceId());
        p.put("matchers", String.valueOf(s.matchers()));
        p.put("endsAt", String.valueOf(o.endsAt()));
        p.put("platform", user.platform());
        audit.append(null, io.acceltriage.audit.AuditKind.SILENCE, user.id(), p);
        return "Silenced " + s.matchers() + " until " + o.endsAt() + " (silence " + o.silenceId() + ").";
    }

    Outcome create(Command.Silence s, ChatUser by) {
        Optional<String> base = ConfigProvider.getConfig().getOptionalValue("acceltriage.alertmanager.url", String.class)
                .filter(u -> !u.isBlank());
        if (base.isEmpty()) {
            return new Outcome(null, null, "no Alertmanager is configured: set ACCELTRIAGE_ALERTMANAGER_URL");
        }
        Instant start = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Instant end = start.plus(s.duration());
        ObjectNode body = Json.MAPPER.createObjectNode();
        ArrayNode matchers = body.putArray("matchers");
        for (Map.Entry<String, String> m : s.matchers().entrySet()) {
            matchers.addObject().put("name", m.getKey()).put("value", m.getValue()).put("isRegex", false).put("isEqual", true);
        }
        body.put("startsAt", start.toString()).put("endsAt", end.toString())
                .put("createdBy", by.actor() + (by.name() == null ? "" : " (" + by.name() + ")") + " via acceltriage")
                .put("comment", s.comment() == null ? "silenced from " + by.platform() : s.comment());
        String url = base.get().replaceAll("/+$", "") + "/api/v2/silences";
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(Json.write(body)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                return new Outcome(null, null, "Alertmanager answered HTTP " + r.statusCode() + ": " + abbreviate(r.body()));
            }
            JsonNode answer = Json.read(r.body(), JsonNode.class);
            return new Outcome(answer.path("silenceID").asText("?"), end, null);
        } catch (IOException | IllegalArgumentException e) {
            return new Outcome(null, null, "Alertmanager at " + base.get() + " did not answer: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(null, null, "interrupted");
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) + "…" : s.strip();
    }
}
