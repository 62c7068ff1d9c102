package io.acceltriage.agent.llm;

import java.util.regex.Pattern;

/**
 * Guardrail: everything gathered from the world (evidence, logs, tool results, history) reaches the
 * model inside a labelled envelope the safety prompt tells it to treat as data. A log line cannot
 * close the envelope early: any envelope marker inside the data is defused.
 */
final class UntrustedData {

    private static final Pattern MARKER = Pattern.compile("(?i)</?\\s*untrusted-data[^>]*>");

    private UntrustedData() {}

    static String wrap(String source, String text) {
        String safeSource = source.replaceAll("[^A-Za-z0-9_:./-]", "_");
        return "<untrusted-data source=\"" + safeSource + "\">\n"
                + MARKER.matcher(text == null ? "" : text).replaceAll("[envelope marker removed]")
                + "\n</untrusted-data>";
    }
}
