package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Turns stored values into the short text a tired reader takes in at a glance. */
final class PageText {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private PageText() {}

    static String time(Instant at) {
        return at == null ? "" : TIME.format(at);
    }

    /** "3 min ago": how long ago, as a reader on call counts it (the absolute time goes in a title beside it). */
    static String ago(Instant at, Instant now) {
        if (at == null) return "";
        long s = java.time.Duration.between(at, now).getSeconds();
        if (s < 0) return "in " + span(-s);
        return s < 5 ? "just now" : span(s) + " ago";
    }

    private static String span(long s) {
        if (s < 60) return s + " s";
        if (s < 3600) return s / 60 + " min";
        if (s < 48 * 3600) return s / 3600 + " h";
        return s / 86400 + " days";
    }

    /** One named value of a stored document. */
    record Field(String name, String value) {
        static final int BRIEF = 160;

        /** Long values (a whole evidence list, say) fold away behind their first words. */
        public boolean isLong() {
            return value.length() > BRIEF;
        }

        public String brief() {
            return isLong() ? value.substring(0, BRIEF) + "…" : value;
        }
    }

    /** The fields of a JSON object, nulls left out; nested objects stay compact JSON. */
    static List<Field> fields(JsonNode node) {
        List<Field> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isObject()) {
            out.add(new Field("value", scalar(node)));
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNull()) {
                out.add(new Field(e.getKey(), scalar(e.getValue())));
            }
        }
        return out;
    }

    static String scalar(JsonNode v) {
        if (v == null || v.isNull()) return "";
        if (v.isTextual()) return v.asText();
        if (v.isArray()) {
            List<String> parts = new ArrayList<>();
            v.forEach(x -> parts.add(scalar(x)));
            return String.join(", ", parts);
        }
        return v.toString();
    }

    static String percent(Double confidence) {
        return confidence == null ? "–" : Math.round(confidence * 100) + " %";
    }
}
