package io.acceltriage.evidence;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redactor: strips credentials from evidence text before it leaves the trust boundary — into
 * a captured scenario (shared, committed) or to a model (often hosted). Bearer and basic headers,
 * connection-string passwords, private keys, JWTs, cloud and chat API keys, {@code password=…}-style
 * assignments. Each is replaced by {@code [REDACTED:kind]} and counted, so callers can audit it.
 */
public final class Redactor {

    /** The text with credentials replaced, and how many of each kind were found (in rule order). */
    public record Result(String text, Map<String, Integer> found) {}

    /** Order matters: whole blocks and headers before the generic key=value rule. */
    private static final Map<String, Pattern> RULES = new LinkedHashMap<>();

    static {
        RULES.put("private-key", Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)"));
        RULES.put("bearer", Pattern.compile("(?i)\\b(bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}"));
        RULES.put("connection-string", Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://[^\\s:/@]+:)[^\\s@/]+@"));
        RULES.put("jwt", Pattern.compile("\\beyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}"));
        RULES.put("api-key", Pattern.compile("\\b(sk-[A-Za-z0-9_-]{16,}|(AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35,}|ya29\\.[0-9A-Za-z_-]+"
                + "|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{20,})"));
        RULES.put("credential", Pattern.compile(
                "(?i)\\b([a-z0-9_.-]*(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[a-z0-9_.-]*[\"']?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s,;&\"'}]+)"));
    }

    private Redactor() {}

    public static String marker(String kind) {
        return "[REDACTED:" + kind + "]";
    }

    public static Result redact(String text) {
        if (text == null || text.isEmpty()) return new Result(text == null ? "" : text, Map.of());
        String out = text;
        Map<String, Integer> found = new LinkedHashMap<>();
        for (Map.Entry<String, Pattern> e : RULES.entrySet()) {
            Matcher m = e.getValue().matcher(out);
            StringBuilder sb = new StringBuilder();
            int count = 0;
            while (m.find()) {
                if (m.group().contains("[REDACTED:")) continue;
                count++;
                String replacement = switch (e.getKey()) {
                    case "bearer" -> m.group(1) + " " + marker("bearer");
                    case "connection-string" -> m.group(1) + marker("connection-string") + "@";
                    case "credential" -> m.group(1) + marker("credential");
                    default -> marker(e.getKey());
                };
                m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
            }
            m.appendTail(sb);
            if (count > 0) {
                out = sb.toString();
                found.put(e.getKey(), count);
            }
        }
        return new Result(out, found);
    }

    /** The text alone, for callers that keep no account of what was removed. */
    public static String scrub(String text) {
        return text == null ? null : redact(text).text();
    }

    /** An environment variable whose name says it holds a credential. */
    public static boolean sensitiveName(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return n.contains("TOKEN") || n.contains("PASSWORD") || n.contains("PASSWD") || n.contains("SECRET") || n.contains("KEY")
                || n.contains("CREDENTIAL") || n.contains("AUTH");
    }
}
