package io.acceltriage.chat;

import io.acceltriage.incident.Subject;
import java.time.Duration;
import java.util.Map;

/** What a person asked for in chat, parsed; Slack and Teams share it. */
public sealed interface Command {

    record Investigate(Subject subject) implements Command {}

    record IncidentStatus(String incidentId) implements Command {}

    record NodeStatus(String node) implements Command {}

    record Why(String actionId) implements Command {}

    record Approve(String actionId) implements Command {}

    record Reject(String actionId, String reason) implements Command {}

    /** {@code matchers}: alertname first, then the label=value pairs given. */
    record Silence(Map<String, String> matchers, Duration duration, String comment) implements Command {}

    record ResetBreaker() implements Command {}

    record Help() implements Command {}

    /** A free-form question ("why was gpu-h100-03 cordoned?"): the model answers it, else the rules. */
    record Question(String text) implements Command {}

    /** Not understood: {@code problem} says what was wrong, for the person to fix. */
    record Unknown(String problem) implements Command {}
}
