package io.acceltriage.policy;

import io.acceltriage.config.DataFiles;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * A policy file of {@code policies/}. Schema and meaning: {@code policies/README.md}. Every field
 * has a safe default, so a short file is a strict one.
 */
public record Policy(String apiVersion, String kind, Metadata metadata, Boolean dryRun, String optOutLabel,
        Scope scope, Map<String, ActionRule> actions, List<Budget> budgets, Limits limits, Breaker breaker,
        List<MaintenanceWindow> maintenanceWindows, List<Freeze> changeFreezes, Approvals approvals,
        List<String> approvers, Silences silences) {

    public record Metadata(String name, String description) {}

    /** Where the agent may act at all. Empty lists mean everywhere. */
    public record Scope(List<String> namespaces, List<String> excludeNamespaces, List<String> pools,
            Map<String, String> matchLabels, Map<String, String> excludeLabels) {}

    /** What one action kind may do: allow, approve (a person decides) or deny, and from what confidence. */
    public record ActionRule(Decision decision, Double minConfidence, Boolean dryRun, String cooldown,
            Boolean maintenanceOnly, Taint taint) {}

    /** A taint cordon-node adds to the node besides marking it unschedulable. */
    public record Taint(String key, String value, String effect) {}

    /** At most {@code max} of {@code action} (or any, for "*") per {@code window}, counted {@code per} target, workload or fleet. */
    public record Budget(String action, Integer max, String window, String per) {}

    public record Limits(Double maxCordonedShareOfPool, Boolean keepLastHealthyNode, Boolean keepServingFloor,
            Boolean wholeGangsOnly) {}

    /** Trips after {@code maxActions} in {@code window}, or when a pool asks for more nodes than its cap. */
    public record Breaker(Integer maxActions, String window, Boolean tripOnPoolCap) {}

    public record MaintenanceWindow(List<String> days, String start, String end, String zone) {}

    public record Freeze(Instant from, Instant to, String reason) {}

    public record Approvals(String expireAfter) {}

    /** Silences people create from chat: at most {@code maxDuration} long. */
    public record Silences(String maxDuration) {}

    /** The longest silence chat may create; chat's own ceiling is a week. */
    static final Duration MAX_CHAT_SILENCE = Duration.ofDays(7);

    /**
     * How long a silence from chat may last. A silence hides a fault from everyone, so the default is
     * a working shift, not chat's ceiling of a week.
     */
    public Duration silenceMaxDuration() {
        return silences == null || silences.maxDuration() == null ? Duration.ofHours(4) : Durations.parse(silences.maxDuration());
    }

    public boolean globalDryRun() {
        return Boolean.TRUE.equals(dryRun);
    }

    public String name() {
        return metadata == null || metadata.name() == null ? "(unnamed)" : metadata.name();
    }

    public String optOutLabelOrDefault() {
        return optOutLabel == null ? "acceltriage.io/opt-out" : optOutLabel;
    }

    public double maxCordonedShare() {
        return limits == null || limits.maxCordonedShareOfPool() == null ? 0.10 : limits.maxCordonedShareOfPool();
    }

    boolean keepLastHealthyNode() {
        return limits == null || limits.keepLastHealthyNode() == null || limits.keepLastHealthyNode();
    }

    boolean keepServingFloor() {
        return limits == null || limits.keepServingFloor() == null || limits.keepServingFloor();
    }

    boolean wholeGangsOnly() {
        return limits == null || limits.wholeGangsOnly() == null || limits.wholeGangsOnly();
    }

    int breakerMaxActions() {
        return breaker == null || breaker.maxActions() == null ? 10 : breaker.maxActions();
    }

    Duration breakerWindow() {
        return breaker == null || breaker.window() == null ? Duration.ofMinutes(10) : Durations.parse(breaker.window());
    }

    boolean tripOnPoolCap() {
        return breaker == null || breaker.tripOnPoolCap() == null || breaker.tripOnPoolCap();
    }

    /** How long an action waits for a person before it expires. */
    public Duration approvalExpiry() {
        return approvals == null || approvals.expireAfter() == null ? Duration.ofHours(4) : Durations.parse(approvals.expireAfter());
    }

    public List<String> approversOrEmpty() {
        return approvers == null ? List.of() : approvers;
    }

    public Taint cordonTaint() {
        ActionRule r = rule(ActionKind.CORDON_NODE);
        return r == null ? null : r.taint();
    }

    public static Policy load(String path) {
        java.nio.file.Path file = java.nio.file.Path.of(path);
        try {
            if (java.nio.file.Files.isRegularFile(file)) {
                return parse(path, java.nio.file.Files.readAllBytes(file));
            }
            try (var in = Policy.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) {
                    throw new DataFiles.InvalidDataFile(path + ": no such file (nor bundled); set ACCELTRIAGE_POLICY_FILE to a policy file");
                }
                org.jboss.logging.Logger.getLogger(Policy.class).warnf(
                        "policy: %s is not a file here (working folder %s); using the copy bundled with the build", path,
                        java.nio.file.Path.of("").toAbsolutePath());
                return parse(path, in.readAllBytes());
            }
        } catch (java.io.IOException e) {
            throw new DataFiles.InvalidDataFile(path + ": cannot read: " + e.getMessage());
        }
    }

    public static Policy parse(String name, byte[] content) {
        PolicyValidator validator = new PolicyValidator(name, new String(content, StandardCharsets.UTF_8));
        Policy parsed;
        try {
            parsed = DataFiles.parse(name, content, Policy.class);
        } catch (DataFiles.InvalidDataFile e) {
            throw validator.relocated(e);
        }
        return validator.validated(parsed);
    }

    ActionRule rule(ActionKind kind) {
        return actions == null ? null : actions.get(kind.wireName());
    }

    List<Budget> budgetsOrEmpty() {
        return budgets == null ? List.of() : budgets;
    }

    /** The zone of a window, UTC unless it names one. */
    static ZoneId zone(MaintenanceWindow w) {
        return w.zone() == null ? ZoneId.of("UTC") : ZoneId.of(w.zone());
    }

    static LocalTime time(String hhmm) {
        return LocalTime.parse(hhmm);
    }
}
