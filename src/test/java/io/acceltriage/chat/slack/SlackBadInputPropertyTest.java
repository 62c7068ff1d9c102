package io.acceltriage.chat.slack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.Secret;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Slack requests that are not Slack's: forged, replayed or mangled. The signature check refuses
 * every one with a reason (and accepts exactly the genuine request), and the form reader either
 * decodes a body or says why it cannot: never an exception the endpoint would turn into a 500.
 */
class SlackBadInputPropertyTest {

    static final String SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
    static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    final SlackSignature check = new SlackSignature(Optional.of(SECRET), Clock.fixed(NOW, ZoneOffset.UTC));
    static final byte[] BODY = BadInputs.utf8("payload=" + URLEncoder.encode("{\"type\":\"block_actions\",\"user\":{\"id\":\"U0APPROVER\"},"
            + "\"actions\":[{\"action_id\":\"approve\",\"value\":\"act-0001\"}],\"response_url\":\"https://hooks.slack.com/x\"}",
            StandardCharsets.UTF_8));

    record Request(String timestamp, String signature, byte[] body) {
        @Override
        public String toString() {
            return "ts=" + timestamp + " sig=" + signature + " body=" + BadInputs.show(body);
        }
    }

    static String signed(String ts, byte[] body) {
        return "v0=" + SlackSignature.sign(Secret.of(SECRET), ts, body);
    }

    /** One thing changed about a genuine request: the body, the signature, the timestamp, or the secret. */
    static Gen<Request> forged() {
        String ts = Long.toString(NOW.getEpochSecond());
        String sig = signed(ts, BODY);
        return Gen.oneOf(
                BadInputs.byteFlips(BODY).filter(b -> !Arrays.equals(b, BODY)).map(b -> new Request(ts, sig, b)),
                BadInputs.truncations(BODY).map(b -> new Request(ts, sig, b)),
                BadInputs.insertions(BODY).map(b -> new Request(ts, sig, b)),
                Gen.strings(0, 80).filter(s -> !s.strip().equals(sig)).map(s -> new Request(ts, s, BODY)),
                Gen.of("", "v0=", "v1=" + sig.substring(3), sig.toUpperCase(), sig.substring(0, sig.length() - 1), sig + "0",
                        "v0=" + SlackSignature.sign(Secret.of(SECRET + "x"), ts, BODY)).map(s -> new Request(ts, s, BODY)),
                Gen.strings(0, 20).filter(s -> !s.strip().equals(ts)).map(t -> new Request(t, sig, BODY)),
                r -> new Request(null, r.nextBoolean() ? sig : null, BODY),
                r -> new Request(ts, null, BODY));
    }

    @Test
    void aForgedRequestIsRefusedWithAReason() {
        Gen.forAll(9, 3000, forged(), Request::toString, q -> {
            String refusal = check.refusal(q.timestamp(), q.signature(), q.body());
            assertNotNull(refusal, "a forged request passed");
            assertFalse(refusal.isBlank());
        });
        String ts = Long.toString(NOW.getEpochSecond());
        assertNull(check.refusal(ts, signed(ts, BODY), BODY), "the genuine request passes");
    }

    /** A captured request replayed later, or sent with a clock far off, is refused even though Slack signed it. */
    @Test
    void aReplayOutsideFiveMinutesIsRefusedThoughCorrectlySigned() {
        long now = NOW.getEpochSecond();
        Gen<Long> away = Gen.oneOf(Gen.between(301, 100_000_000).map(Integer::longValue), Gen.between(-100_000_000, -301).map(Integer::longValue),
                Gen.of(Long.MIN_VALUE, Long.MIN_VALUE - now, Long.MIN_VALUE + now, Long.MAX_VALUE - now, -now, Long.MIN_VALUE / 2).map(x -> x));
        Gen.forAll(10, 2000, away, String::valueOf, offset -> {
            String ts = Long.toString(now + offset);
            String refusal = check.refusal(ts, signed(ts, BODY), BODY);
            assertNotNull(refusal, "a replay " + offset + " s away passed");
            assertTrue(refusal.contains("5 minutes"), refusal);
        });
        Gen.forAll(11, 200, Gen.between(-300, 300), String::valueOf, offset -> {
            String ts = Long.toString(now + offset);
            assertNull(check.refusal(ts, signed(ts, BODY), BODY), "within the window a signed request passes");
        });
    }

    @Test
    void anyBodyIsAFormOrSaysWhyNot() {
        Gen<byte[]> bodies = Gen.oneOf(BadInputs.byteFlips(BODY), BadInputs.insertions(BODY), BadInputs.invalidUtf8(BODY),
                BadInputs.truncations(BODY), BadInputs.junk(),
                Gen.of("%", "a=%", "a=%4", "a=%zz", "%FF=1", "a=%C0%AF", "a=%ED%A0%80", "&&=&", "=", "a=b=c", "+=+").map(BadInputs::utf8));
        Gen.forAll(12, 3000, bodies, BadInputs::show, body -> {
            try {
                Map<String, String> form = FormBody.parse(body);
                form.forEach((k, v) -> assertFalse(k.contains("\uFFFD") && !new String(body, StandardCharsets.UTF_8).contains("\uFFFD")
                        && !new String(body, StandardCharsets.UTF_8).contains("%EF%BF%BD"), "a replacement character made up for bad bytes"));
            } catch (FormBody.Malformed e) {
                assertFalse(e.getMessage().isBlank());
            }
        });
        assertEquals(Map.of("a", "b c", "d", "é"), FormBody.parse(BadInputs.utf8("a=b+c&d=%C3%A9")));
    }
}
