package io.acceltriage.testing;

import static io.acceltriage.testing.Gen.weight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The inputs a public endpoint must survive: a valid body broken in the ways clients, proxies and
 * attackers break one (cut short, bytes overwritten, wrong types, unknown fields, deep nesting,
 * invalid UTF-8, junk), and garbage identifiers, times and limits.
 */
public final class BadInputs {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Marks where raw, possibly invalid, JSON text goes in a serialised tree. */
    private static final String HOLE = "@@hole-7f3a9c@@";

    private BadInputs() {}

    // ---- bodies ----

    /** A valid JSON body broken in one of many ways; a few breakages (an unknown field) may leave it valid. */
    public static Gen<byte[]> jsonMutationsOf(String validJson) {
        byte[] valid = utf8(validJson);
        return Gen.frequency(
                weight(3, truncations(valid)),
                weight(3, byteFlips(valid)),
                weight(2, insertions(valid)),
                weight(5, valueReplacements(validJson)),
                weight(1, unknownFields(validJson)),
                weight(1, invalidUtf8(valid)),
                weight(1, deepNesting().map(BadInputs::utf8)),
                weight(1, junk()));
    }

    /** The body cut short anywhere, down to nothing at all. */
    public static Gen<byte[]> truncations(byte[] valid) {
        return Gen.between(0, valid.length - 1).map(n -> Arrays.copyOf(valid, n));
    }

    /** One to four bytes overwritten with any byte value. */
    public static Gen<byte[]> byteFlips(byte[] valid) {
        return r -> {
            byte[] out = valid.clone();
            for (int i = 1 + r.nextInt(4); i > 0; i--) {
                out[r.nextInt(out.length)] = (byte) r.nextInt(256);
            }
            return out;
        };
    }

    /** JSON punctuation, a NUL or a literal JSON does not have, inserted anywhere. */
    public static Gen<byte[]> insertions(byte[] valid) {
        Gen<String> what = Gen.of("{", "}", "[", "]", ",", ":", "\"", "\\", "null", "\u0000", "/*", "'", "NaN", "-", "1e99999",
                "\n", "}}}}", ",,", "\":\"", "\uFEFF");
        return r -> insert(valid, r.nextInt(valid.length + 1), utf8(what.next(r)));
    }

    /** Bytes that are not UTF-8 (a lone continuation byte, an overlong form, a surrogate, 0xFF…) put anywhere. */
    public static Gen<byte[]> invalidUtf8(byte[] valid) {
        return r -> insert(valid, r.nextInt(valid.length + 1), notUtf8().next(r));
    }

    public static Gen<byte[]> notUtf8() {
        return Gen.of(new byte[] {(byte) 0x80}, new byte[] {(byte) 0xC0, (byte) 0xAF},
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xC3},
                new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xE2, (byte) 0x28, (byte) 0xA1},
                new byte[] {(byte) 0xFE, (byte) 0xFF});
    }

    /** One value anywhere in the document (or the whole document) replaced by a value of any other shape. */
    public static Gen<byte[]> valueReplacements(String validJson) {
        JsonNode tree = read(validJson);
        List<List<Object>> paths = new ArrayList<>();
        paths(tree, new ArrayList<>(), paths);
        Gen<List<Object>> where = Gen.of(paths);
        Gen<String> values = jsonValues();
        return r -> {
            List<Object> path = where.next(r);
            String raw = values.next(r);
            if (path.isEmpty()) return utf8(raw);
            JsonNode copy = tree.deepCopy();
            set(copy, path, TextNode.valueOf(HOLE));
            return utf8(write(copy).replace("\"" + HOLE + "\"", raw));
        };
    }

    /** A field nobody defined, at the top level. */
    public static Gen<byte[]> unknownFields(String validJson) {
        JsonNode tree = read(validJson);
        Gen<String> names = Gen.strings(1, 20);
        Gen<String> values = jsonValues();
        return r -> {
            String name = names.next(r);
            String raw = values.next(r);
            if (!(tree instanceof ObjectNode)) return utf8(raw);
            ObjectNode copy = ((ObjectNode) tree).deepCopy();
            copy.set(name, TextNode.valueOf(HOLE));
            return utf8(write(copy).replace("\"" + HOLE + "\"", raw));
        };
    }

    /** Arrays or objects nested far deeper than any real payload, closed or not. */
    public static Gen<String> deepNesting() {
        Gen<Integer> depth = Gen.of(10, 999, 1001, 5_000, 100_000);
        Gen<String> open = Gen.of("[", "{\"a\":");
        return r -> {
            int d = depth.next(r);
            String o = open.next(r);
            String close = o.equals("[") ? "]" : "}";
            return o.repeat(d) + "1" + (r.nextBoolean() ? close.repeat(d) : "");
        };
    }

    /** Things that are not the expected body at all. */
    public static Gen<byte[]> junk() {
        return Gen.oneOf(
                Gen.strings(0, 200).map(BadInputs::utf8),
                Gen.bytes(200),
                Gen.of("", " ", "null", "true", "0", "-0", "1e999", "\"x\"", "[]", "{}", "[{}]", "{\"\":\"\"}", "<xml/>",
                        "\uFEFF{}", "{} {}", "a=b&c=d", "{\"a\":1}\u0000").map(BadInputs::utf8));
    }

    /** JSON text of a value of any shape, some of it deliberately not JSON at all. */
    public static Gen<String> jsonValues() {
        return Gen.oneOf(
                Gen.of("null", "true", "false", "0", "-1", "1.5", "1e400", "-1e400", "123456789012345678901234567890", "\"\"", "[]",
                        "{}", "[null]", "{\"\":null}", "[[[[[]]]]]", "\"\\u0000\"", "\"\\ud800\"", "NaN", "undefined", "'single'",
                        "0x10", "+1", "01", "[1,]", "{\"a\":1,}", "9".repeat(2000)),
                Gen.strings(0, 40).map(BadInputs::quoted),
                badTimes().map(BadInputs::quoted),
                Gen.of(300, 2100, 5000).map(n -> quoted("x".repeat(n))),
                Gen.longs().map(Object::toString),
                r -> Double.toString(r.nextGaussian() * Math.pow(10, r.nextInt(300))),
                deepNesting().filter(s -> s.length() < 20_000));
    }

    // ---- identifiers, times, limits ----

    /** Path segments nothing is called: traversal, escapes of every kind, injections, huge. */
    public static Gen<String> garbageIds() {
        return Gen.oneOf(
                Gen.of("x", "act-", "act-0000", "inc-", "..", "%2e%2e", "%2F", "%00", "%FF", "%C0%AF", "%ED%A0%80", "null",
                        "undefined", "-1", "0", "9223372036854775808", "'%20or%201=1%20--", "%3Cscript%3E", "a%20b", "%20", "%C3%A9",
                        "%E2%80%AE", "act-1;drop%20table%20actions", "*", "~", "%25", "%0A", "%0D%0AX-Injected:%201"),
                Gen.ascii(1, 60).map(BadInputs::encode),
                Gen.strings(1, 20).map(BadInputs::encode),
                Gen.between(200, 1500).map("a"::repeat));
    }

    /**
     * Request targets that are not valid URIs at all (bare '%', '|', '"', '{'), or longer than the
     * server reads: the HTTP layer refuses these before the application sees them.
     */
    public static Gen<String> invalidTargets() {
        return Gen.oneOf(
                Gen.of("%", "%zz", "%F", "a|b", "a\"b", "{x}", "a^b", "a`b", "a<b>", "%%", "a b"),
                Gen.ascii(1, 40).filter(s -> s.matches(".*[|\"{}^`<>\\\\].*")),
                Gen.between(5000, 9000).map("a"::repeat));
    }

    /** Values of a time parameter that are no RFC 3339 time, or one far out of range. */
    public static Gen<String> badTimes() {
        return Gen.oneOf(
                Gen.of("yesterday", "now", "0", "-1", "1700000000", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01",
                        "2026-01-01T25:00:00Z", "2026-01-01T00:00:00", "+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z",
                        "+1000000000-01-01T00:00:00Z", "+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "9999-99-99", "T", "Z",
                        "1e9", "2026-01-01T00:00:00+25:00", "2026-01-01T00:00:00.1234567890Z"),
                Gen.strings(1, 40).filter(s -> !s.isBlank()));
    }

    /** Values of a limit parameter that are no sensible count. */
    public static Gen<String> badLimits() {
        return Gen.oneOf(
                Gen.of("0", "-1", "-2147483648", "2147483648", "99999999999999999999", "1.5", "1e3", "ten", "0x10", "NaN",
                        "1001", "100000", "+", "--1"),
                Gen.between(Integer.MIN_VALUE, 0).map(Object::toString),
                Gen.between(100_001, Integer.MAX_VALUE).map(Object::toString),
                Gen.strings(1, 12).filter(s -> !s.isBlank() && !aCount(s)));
    }

    private static boolean aCount(String s) {
        try {
            long n = Long.parseLong(s.strip());
            return n >= 1 && n <= 1000;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    // ---- helpers ----

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A body for a failure message: as text, cut to a readable length. */
    public static String show(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8);
        return s.length() > 300 ? s.substring(0, 300) + "… (" + body.length + " bytes)" : s;
    }

    public static String quoted(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Any string as one percent-encoded path segment. */
    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public static byte[] insert(byte[] into, int at, byte[] what) {
        byte[] out = new byte[into.length + what.length];
        System.arraycopy(into, 0, out, 0, at);
        System.arraycopy(what, 0, out, at, what.length);
        System.arraycopy(into, at, out, at + what.length, into.length - at);
        return out;
    }

    static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void paths(JsonNode node, List<Object> at, List<List<Object>> out) {
        out.add(List.copyOf(at));
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                at.add(e.getKey());
                paths(e.getValue(), at, out);
                at.remove(at.size() - 1);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                at.add(i);
                paths(node.get(i), at, out);
                at.remove(at.size() - 1);
            }
        }
    }

    private static void set(JsonNode root, List<Object> path, JsonNode value) {
        JsonNode parent = root;
        for (Object step : path.subList(0, path.size() - 1)) {
            parent = step instanceof Integer i ? parent.get(i) : parent.get((String) step);
        }
        Object last = path.get(path.size() - 1);
        if (last instanceof Integer i) {
            ((ArrayNode) parent).set(i, value);
        } else {
            ((ObjectNode) parent).set((String) last, value);
        }
    }
}
