package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Label and field selectors as the API server evaluates them. The CRUD server only understands equality
 * on labels and on metadata.name/namespace; evidence collectors ask for pods by spec.nodeName and for
 * events by involvedObject.name, so list requests are filtered here instead.
 */
final class Selectors {

    private Selectors() {
    }

    static Predicate<JsonNode> labels(String selector) {
        if (selector == null || selector.isBlank()) {
            return o -> true;
        }
        List<Predicate<JsonNode>> requirements = new ArrayList<>();
        for (String requirement : splitTopLevel(selector)) {
            requirements.add(labelRequirement(requirement.trim()));
        }
        return o -> requirements.stream().allMatch(r -> r.test(o));
    }

    static Predicate<JsonNode> fields(String selector) {
        if (selector == null || selector.isBlank()) {
            return o -> true;
        }
        List<Predicate<JsonNode>> requirements = new ArrayList<>();
        for (String requirement : selector.split(",")) {
            String r = requirement.trim();
            boolean negated = r.contains("!=");
            String[] parts = negated ? r.split("!=", 2) : r.split("==?", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException("invalid field selector requirement: " + r);
            }
            String field = parts[0].trim();
            String value = parts[1].trim();
            requirements.add(o -> negated != value.equals(field(o, field)));
        }
        return o -> requirements.stream().allMatch(r -> r.test(o));
    }

    /** A dotted field path's value as text, "" when absent (as the API server compares it). */
    static String field(JsonNode object, String dottedPath) {
        JsonNode node = object;
        for (String part : dottedPath.split("\\.")) {
            node = node.path(part);
        }
        return node.isValueNode() ? node.asText() : "";
    }

    private static Predicate<JsonNode> labelRequirement(String r) {
        String lower = r.toLowerCase();
        int in = lower.indexOf(" in ");
        int notIn = lower.indexOf(" notin ");
        if (notIn > 0) {
            String key = r.substring(0, notIn).trim();
            Set<String> values = setValues(r.substring(notIn + 7));
            return o -> !values.contains(label(o, key));
        }
        if (in > 0) {
            String key = r.substring(0, in).trim();
            Set<String> values = setValues(r.substring(in + 4));
            return o -> label(o, key) != null && values.contains(label(o, key));
        }
        if (r.contains("!=")) {
            String[] p = r.split("!=", 2);
            return o -> !p[1].trim().equals(label(o, p[0].trim()));
        }
        if (r.contains("=")) {
            String[] p = r.split("==?", 2);
            return o -> p[1].trim().equals(label(o, p[0].trim()));
        }
        if (r.startsWith("!")) {
            String key = r.substring(1).trim();
            return o -> label(o, key) == null;
        }
        return o -> label(o, r) != null;
    }

    private static Set<String> setValues(String parenthesised) {
        String inner = parenthesised.trim().replaceAll("^\\(|\\)$", "");
        return Arrays.stream(inner.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    }

    private static String label(JsonNode o, String key) {
        JsonNode v = o.path("metadata").path("labels").get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** Splits on commas outside parentheses, so "a in (x,y),b" is two requirements. */
    private static List<String> splitTopLevel(String s) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (!current.isEmpty()) {
            parts.add(current.toString());
        }
        return parts;
    }
}
