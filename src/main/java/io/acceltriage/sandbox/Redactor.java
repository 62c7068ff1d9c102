package io.acceltriage.sandbox;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strips credentials from text a capture keeps (container logs, event messages): bearer tokens,
 * passwords in URLs, AWS and GCP keys, private keys, and {@code password=…}-style assignments. A
 * captured scenario is shared and committed; what it must not carry is replaced by {@code <redacted>}.
 */
public final class Redactor {

    public static final String REDACTED = "<redacted>";

    private record Rule(Pattern pattern, String replacement) {}

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----"), REDACTED),
            new Rule(Pattern.compile("(?i)\\b(bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}"), "$1 " + REDACTED),
            new Rule(Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://[^/\\s:@]+):[^@\\s/]+@"), "$1:" + REDACTED + "@"),
            new Rule(Pattern.compile("\\b(AKIA|ASIA)[0-9A-Z]{16}\\b"), REDACTED),
            new Rule(Pattern.compile("\\bAIza[0-9A-Za-z_-]{35,}"), REDACTED),
            new Rule(Pattern.compile("\\bya29\\.[0-9A-Za-z_-]+"), REDACTED),
            new Rule(Pattern.compile("\\b(gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,})\\b"), REDACTED),
            new Rule(Pattern.compile("(?i)\\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"
                    + "[A-Za-z0-9_.-]*\"?\\s*[:=]\\s*\"?)[^\\s\",}]+"), "$1" + REDACTED));

    private Redactor() {}

    public static String redact(String text) {
        if (text == null) return null;
        String out = text;
        for (Rule r : RULES) {
            Matcher m = r.pattern().matcher(out);
            out = m.replaceAll(r.replacement());
        }
        return out;
    }

    /** An environment variable whose name says it holds a credential. */
    public static boolean sensitiveName(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return n.contains("TOKEN") || n.contains("PASSWORD") || n.contains("PASSWD") || n.contains("SECRET") || n.contains("KEY")
                || n.contains("CREDENTIAL") || n.contains("AUTH");
    }
}
