package io.acceltriage.evidence;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the Prometheus text exposition format (what dcgm-exporter and friends serve). Comment and
 * blank lines are skipped; a malformed line is an error naming the line, since a half-read scrape
 * would be quietly wrong evidence.
 */
public final class ExpositionParser {

    private ExpositionParser() {}

    public static List<Sample> parse(String text) {
        List<Sample> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                out.add(parseLine(line));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage() + ": " + abbreviate(line));
            }
        }
        return out;
    }

    static Sample parseLine(String line) {
        int i = 0;
        int n = line.length();
        while (i < n && isNameChar(line.charAt(i), i == 0)) i++;
        if (i == 0) throw new IllegalArgumentException("expected a metric name");
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < n && line.charAt(i) == '{') {
            i++;
            while (true) {
                while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ',')) i++;
                if (i < n && line.charAt(i) == '}') { i++; break; }
                int start = i;
                while (i < n && isNameChar(line.charAt(i), i == start)) i++;
                if (i == start) throw new IllegalArgumentException("expected a label name at column " + (i + 1));
                String label = line.substring(start, i);
                while (i < n && line.charAt(i) == ' ') i++;
                if (i >= n || line.charAt(i) != '=') throw new IllegalArgumentException("expected '=' after label " + label);
                i++;
                while (i < n && line.charAt(i) == ' ') i++;
                if (i >= n || line.charAt(i) != '"') throw new IllegalArgumentException("expected '\"' for label " + label);
                i++;
                StringBuilder value = new StringBuilder();
                while (i < n && line.charAt(i) != '"') {
                    char c = line.charAt(i);
                    if (c == '\\' && i + 1 < n) {
                        char e = line.charAt(++i);
                        value.append(e == 'n' ? '\n' : e);
                    } else {
                        value.append(c);
                    }
                    i++;
                }
                if (i >= n) throw new IllegalArgumentException("unterminated value of label " + label);
                i++;
                labels.put(label, value.toString());
            }
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length == 0 || rest[0].isEmpty()) throw new IllegalArgumentException("missing value");
        return new Sample(name, labels, parseValue(rest[0]));
    }

    private static double parseValue(String s) {
        switch (s) {
            case "NaN": return Double.NaN;
            case "+Inf": case "Inf": return Double.POSITIVE_INFINITY;
            case "-Inf": return Double.NEGATIVE_INFINITY;
            default: return Double.parseDouble(s);
        }
    }

    private static boolean isNameChar(char c, boolean first) {
        return Character.isLetter(c) || c == '_' || c == ':' || (!first && Character.isDigit(c));
    }

    private static String abbreviate(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "…" : s;
    }
}
