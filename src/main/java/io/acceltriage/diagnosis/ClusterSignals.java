package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** What {@code knowledge/cluster-signals.yaml} says node conditions, events and terminations suggest. */
public record ClusterSignals(List<Signal> nodeConditions, List<Signal> events, List<String> unhealthyStates,
        List<Signal> terminations) {

    public record Signal(String type, String reason, String pattern, String family, double weight, String cause) {
        boolean matchesMessage(String message) {
            return pattern == null || (message != null && Pattern.compile(pattern).matcher(message).find());
        }
    }

    public static ClusterSignals load() {
        return DataFiles.resource("knowledge/cluster-signals.yaml", ClusterSignals.class);
    }

    Optional<Signal> condition(String type) {
        return nodeConditions.stream().filter(s -> s.type().equals(type)).findFirst();
    }

    Optional<Signal> event(String reason, String message) {
        return events.stream().filter(s -> s.reason().equals(reason) && s.matchesMessage(message)).findFirst();
    }

    Optional<Signal> termination(String reason) {
        return terminations.stream().filter(s -> s.reason().equals(reason)).findFirst();
    }
}
