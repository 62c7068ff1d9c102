package io.acceltriage.policy;

import io.acceltriage.DataFiles;
import java.util.List;
import java.util.Map;

/**
 * A policy file of {@code policies/}. Schema and meaning: {@code policies/README.md}. Every field
 * has a safe default, so a short file is a strict one.
 */
public record Policy(String apiVersion, String kind, Metadata metadata, Boolean dryRun, String optOutLabel,
        Map<String, ActionRule> actions, Limits limits, List<String> approvers) {

    public record Metadata(String name, String description) {}

    /** What one action kind may do: allow, approve (a person decides) or deny, and from what confidence. */
    public record ActionRule(Decision decision, Double minConfidence, Boolean dryRun) {}

    public record Limits(Double maxCordonedShareOfPool, Boolean keepLastHealthyNode) {}

    public boolean globalDryRun() {
        return Boolean.TRUE.equals(dryRun);
    }

    public String optOutLabelOrDefault() {
        return optOutLabel == null ? "acceltriage.io/opt-out" : optOutLabel;
    }

    public double maxCordonedShare() {
        return limits == null || limits.maxCordonedShareOfPool() == null ? 0.10 : limits.maxCordonedShareOfPool();
    }

    public static Policy load(String path) {
        Policy p = DataFiles.fileOrResource(path, Policy.class);
        return validated(path, p);
    }

    public static Policy parse(String name, byte[] content) {
        return validated(name, DataFiles.parse(name, content, Policy.class));
    }

    static Policy validated(String file, Policy p) {
        if (!"acceltriage.io/v1".equals(p.apiVersion())) {
            throw new DataFiles.InvalidDataFile(file + ": apiVersion must be acceltriage.io/v1, got '" + p.apiVersion() + "'");
        }
        if (!"Policy".equals(p.kind())) {
            throw new DataFiles.InvalidDataFile(file + ": kind must be Policy, got '" + p.kind() + "'");
        }
        if (p.actions() != null) {
            for (Map.Entry<String, ActionRule> e : p.actions().entrySet()) {
                try {
                    ActionKind.parse(e.getKey());
                } catch (IllegalArgumentException ex) {
                    throw new DataFiles.InvalidDataFile(file + ": actions." + e.getKey() + ": " + ex.getMessage());
                }
                ActionRule r = e.getValue();
                if (r == null || r.decision() == null) {
                    throw new DataFiles.InvalidDataFile(file + ": actions." + e.getKey() + ".decision is required (allow, approve or deny)");
                }
                if (r.minConfidence() != null && (r.minConfidence() < 0 || r.minConfidence() > 1)) {
                    throw new DataFiles.InvalidDataFile(file + ": actions." + e.getKey() + ".minConfidence must be between 0 and 1, got "
                            + r.minConfidence());
                }
            }
        }
        if (p.limits() != null && p.limits().maxCordonedShareOfPool() != null
                && (p.limits().maxCordonedShareOfPool() <= 0 || p.limits().maxCordonedShareOfPool() > 1)) {
            throw new DataFiles.InvalidDataFile(file + ": limits.maxCordonedShareOfPool must be in (0, 1], got "
                    + p.limits().maxCordonedShareOfPool());
        }
        return p;
    }

    ActionRule rule(ActionKind kind) {
        return actions == null ? null : actions.get(kind.wireName());
    }
}
