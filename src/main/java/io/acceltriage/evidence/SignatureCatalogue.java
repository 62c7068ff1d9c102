package io.acceltriage.evidence;

import io.acceltriage.config.DataFiles;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/** The log signatures of {@code knowledge/log-signatures.yaml}: what a line means and what helps. */
public final class SignatureCatalogue {

    public enum Remedy { RESTART, ESCALATE, NONE }

    /**
     * {@code wrapper}: a framework's own report of a failure whose message may quote its cause (a serving framework's
     * "failed to load" line): when the same pod's log names a cause of the platform, the wrapper is that cause's symptom.
     * {@code cannotServe}: the line means the node cannot run accelerator work until a person fixes it (its kernel driver
     * not loaded, a driver/library mismatch): the planner fences the node when a platform source backs the diagnosis.
     * {@code after}: the line counts only once a line matching this pattern came earlier in the same log (null: always).
     */
    public record Signature(String id, String pattern, String family, double weight, Remedy remedy, String cause,
            boolean agentOnly, boolean wrapper, boolean cannotServe, String after) {}

    record File(List<Signature> signatures) {}

    private final List<Signature> signatures;
    private final Map<String, Signature> byId;
    private final List<Pattern> patterns;
    private final List<Pattern> afters;

    SignatureCatalogue(List<Signature> signatures) {
        this.signatures = List.copyOf(signatures);
        this.byId = signatures.stream().collect(Collectors.toMap(Signature::id, Function.identity()));
        this.patterns = signatures.stream().map(s -> compile(s, s.pattern(), "pattern")).toList();
        // null where a signature has no after line
        this.afters = signatures.stream().map(s -> s.after() == null ? null : compile(s, s.after(), "after pattern")).toList();
    }

    private static Pattern compile(Signature s, String regex, String what) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new DataFiles.InvalidDataFile("knowledge/log-signatures.yaml: signature '" + s.id() + "' has an invalid " + what
                    + ": " + e.getDescription());
        }
    }

    public static SignatureCatalogue load() {
        return new SignatureCatalogue(DataFiles.resource("knowledge/log-signatures.yaml", File.class).signatures());
    }

    /** The ids of the signatures whose line means the node cannot serve accelerator work. */
    public java.util.Set<String> cannotServe() {
        return signatures.stream().filter(Signature::cannotServe).map(Signature::id).collect(Collectors.toUnmodifiableSet());
    }

    public Optional<Signature> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** The signatures a line matches; agent-only ones count only for node agents. */
    List<Signature> match(String line, PodRole role) {
        return match(line, role, new java.util.HashSet<>());
    }

    /**
     * The signatures a line matches, reading one log line by line: {@code armed} holds the ids of the signatures whose
     * {@code after} line came earlier in the same log (updated with this line).
     */
    List<Signature> match(String line, PodRole role, java.util.Set<String> armed) {
        List<Signature> out = new java.util.ArrayList<>(1);
        for (int i = 0; i < signatures.size(); i++) {
            Signature s = signatures.get(i);
            if (s.agentOnly() && !role.nodeAgent()) {
                continue;
            }
            Pattern after = afters.get(i);
            if (after != null && !armed.contains(s.id())) {
                if (after.matcher(line).find()) armed.add(s.id());
                continue;
            }
            if (patterns.get(i).matcher(line).find()) {
                out.add(s);
            }
        }
        return out;
    }
}
