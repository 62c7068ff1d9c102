package io.acceltriage.agent.llm;

import io.acceltriage.agent.Redaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Guardrail: removes secrets (bearer headers, tokens, passwords, keys, connection-string credentials,
 * private keys, JWTs) from every text before it is sent to a model. Logs and events routinely carry
 * them, and a hosted model is outside the trust boundary. Each redaction is reported so it is audited.
 */
final class Redactor {

    /** Order matters: whole blocks and headers before the generic key=value rule. */
    private static final Map<String, Pattern> PATTERNS = new LinkedHashMap<>();

    static {
        PATTERNS.put("private-key", Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)"));
        PATTERNS.put("bearer", Pattern.compile("(?i)\\b(bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}"));
        PATTERNS.put("connection-string", Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://[^\\s:/@]+:)[^\\s@/]+@"));
        PATTERNS.put("jwt", Pattern.compile("\\beyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}"));
        PATTERNS.put("api-key", Pattern.compile("\\b(sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,})"));
        PATTERNS.put("credential", Pattern.compile(
                "(?i)\\b([a-z0-9_.-]*(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[a-z0-9_.-]*[\"']?\\s*[=:]\\s*)(\"[^\"]*\"|'[^']*'|[^\\s,;&\"']+)"));
    }

    record Redacted(String text, List<Redaction> redactions) {}

    Redacted redact(String text, String where) {
        if (text == null || text.isEmpty()) return new Redacted(text == null ? "" : text, List.of());
        String out = text;
        List<Redaction> found = new ArrayList<>();
        for (Map.Entry<String, Pattern> e : PATTERNS.entrySet()) {
            Matcher m = e.getValue().matcher(out);
            StringBuilder sb = new StringBuilder();
            int count = 0;
            while (m.find()) {
                if (m.group().contains("[REDACTED:")) continue;
                count++;
                String replacement = switch (e.getKey()) {
                    case "bearer" -> m.group(1) + " [REDACTED:bearer]";
                    case "connection-string" -> m.group(1) + "[REDACTED:connection-string]@";
                    case "credential" -> m.group(1) + "[REDACTED:credential]";
                    default -> "[REDACTED:" + e.getKey() + "]";
                };
                m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
            }
            m.appendTail(sb);
            if (count > 0) {
                out = sb.toString();
                found.add(new Redaction(where, e.getKey(), count));
            }
        }
        return new Redacted(out, found);
    }
}
