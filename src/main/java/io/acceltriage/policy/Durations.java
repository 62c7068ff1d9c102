package io.acceltriage.policy;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as policies write them: 30s, 10m, 4h, 7d (and 500ms, for objectives a drill must miss). */
public final class Durations {

    private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private Durations() {}

    public static Duration parse(String text) {
        Matcher m = text == null ? null : FORM.matcher(text.trim());
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; write a number and s, m, h or d, e.g. 10m");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    static String format(Duration d) {
        if (d.getNano() != 0) return d.toMillis() + "ms";
        long s = d.getSeconds();
        if (s % 86400 == 0) return s / 86400 + "d";
        if (s % 3600 == 0) return s / 3600 + "h";
        if (s % 60 == 0) return s / 60 + "m";
        return s + "s";
    }
}
