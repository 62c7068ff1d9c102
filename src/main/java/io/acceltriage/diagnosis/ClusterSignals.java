package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** What {@code knowledge/cluster-signals.yaml} says node conditions, events and terminations suggest. */
public record ClusterSignals(List<Signal> nodeConditions, List<Signal> events, List<String> unhealthyStates,
        List<Signal> terminations, List<Signal> waitingReasons, List<Signal> nodeLabels, List<Signal> nodeTaints) {

    public ClusterSignals {
        waitingReasons = waitingReasons == null ? List.of() : waitingReasons;
        nodeLabels = nodeLabels == null ? List.of() : nodeLabels;
        nodeTaints = nodeTaints == null ? List.of() : nodeTaints;
    }

    /**
     * {@code cannotServe}: the node cannot run accelerator work until a person fixes it.
     * {@code persistent}: the event reports a state that holds until someone changes it (a unit that
     * failed stays failed and says so once), so its age does not make it history.
     * {@code planned}: see {@link #intended()}. {@code leaving}: see {@link #removesNode()}.
     */
    public record Signal(String type, String reason, String pattern, String family, double weight, String cause,
            Boolean cannotServe, Boolean persistent, Boolean planned, Boolean wholeNode, Boolean leaving) {
        /** The fault reaches every accelerator of the node (their shared NVSwitch fabric), not one device. */
        boolean nodeWide() {
            return Boolean.TRUE.equals(wholeNode);
        }

        /** A change the platform makes on purpose is under way (a node label): what it withdraws is no fault. */
        boolean intended() {
            return Boolean.TRUE.equals(planned);
        }

        /** The planned change is the node's removal by its provisioner or the autoscaler: nothing is done on it any more. */
        boolean removesNode() {
            return intended() && Boolean.TRUE.equals(leaving);
        }

        boolean fences() {
            return Boolean.TRUE.equals(cannotServe);
        }

        boolean holds() {
            return Boolean.TRUE.equals(persistent);
        }

        boolean matchesMessage(String message) {
            return pattern == null || (message != null && Pattern.compile(pattern).matcher(message).find());
        }
    }

    public static ClusterSignals load() {
        return DataFiles.resource("knowledge/cluster-signals.yaml", ClusterSignals.class);
    }

    /**
     * What a True node condition says. A row may name the condition's type, its message's pattern, or both: a
     * node agent's kernel line (the same text whatever agent relays it) is known by its message alone.
     */
    Optional<Signal> condition(String type, String message) {
        return nodeConditions.stream().filter(s -> (s.type() == null || s.type().equals(type)) && s.matchesMessage(message)).findFirst();
    }

    /** What an event says; a row without a reason is known by its message's pattern alone (a relayed kernel line). */
    Optional<Signal> event(String reason, String message) {
        return events.stream().filter(s -> (s.reason() == null || s.reason().equals(reason)) && s.matchesMessage(message)).findFirst();
    }

    Optional<Signal> waiting(String reason) {
        return waitingReasons.stream().filter(s -> s.reason().equals(reason)).findFirst();
    }

    /** What a node label's value says (the label's key is the signal's {@code type}, its value is matched by {@code pattern}). */
    Optional<Signal> nodeLabel(String key, String value) {
        return nodeLabels.stream().filter(s -> s.type().equals(key) && s.matchesMessage(value)).findFirst();
    }

    /** What a node taint says (its key is the signal's {@code type}; a {@code pattern} matches its value). */
    Optional<Signal> nodeTaint(String key, String value) {
        return nodeTaints.stream().filter(s -> s.type().equals(key) && s.matchesMessage(value)).findFirst();
    }

    Optional<Signal> termination(String reason) {
        return terminations.stream().filter(s -> s.reason().equals(reason)).findFirst();
    }
}
