package io.acceltriage.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.Map;

/** What a refused request must look like to whoever sent it. */
public final class Refused {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Refused() {}

    /**
     * A 4xx ({@code expected}, or any 4xx for -1) with a reason: an {@code error} in a JSON body, or a
     * page or text that says something. Never a 5xx. A page may instead send the browser to sign in.
     */
    public static void refused(RawHttp.Answer a, int expected) {
        int status = a.status();
        String body = a.text();
        assertTrue(status < 500, () -> "a 5xx for bad input: " + status + " " + abbreviate(body));
        if (status == 303 && expected == -1 && String.valueOf(a.header("Location")).startsWith("/login")) return;
        assertTrue(expected == -1 ? status >= 400 && status < 500 : status == expected,
                () -> "expected " + (expected == -1 ? "a 4xx" : expected) + ", got " + status + " " + abbreviate(body));
        String type = String.valueOf(a.header("Content-Type"));
        if (type.contains("json")) {
            JsonNode json;
            try {
                json = JSON.readTree(body);
            } catch (java.io.IOException e) {
                throw new AssertionError("a JSON refusal that is not JSON: " + abbreviate(body));
            }
            assertTrue(json.path("error").isTextual() && !json.path("error").asText().isBlank(),
                    () -> "a refusal without a reason: " + status + " " + abbreviate(body));
        } else {
            assertFalse(body.isBlank(), () -> "a " + status + " (" + type + ") without a reason");
        }
    }

    public static Map<String, String> headers(String... namesAndValues) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) out.put(namesAndValues[i], namesAndValues[i + 1]);
        return out;
    }

    static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
