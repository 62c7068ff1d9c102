package io.acceltriage.chat.slack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.Secret;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlackSignatureTest {

    static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    final SlackSignature check = new SlackSignature(Optional.of("8f742231b10e8888abcd99yyyzzz85a5"), Clock.fixed(NOW, ZoneOffset.UTC));
    final byte[] body = "token=x&command=%2Ftriage&text=help".getBytes(StandardCharsets.UTF_8);
    final String ts = Long.toString(NOW.getEpochSecond());

    @Test
    void slacksDocumentedExampleVerifies() {
        // The example of Slack's "Verifying requests from Slack" page.
        String secret = "8f742231b10e8888abcd99yyyzzz85a5";
        byte[] b = ("token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
                + "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
                + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
                + "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c").getBytes(StandardCharsets.UTF_8);
        assertEquals("a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
                SlackSignature.sign(Secret.of(secret), "1531420618", b));
    }

    @Test
    void aCorrectlySignedFreshRequestPasses() {
        assertNull(check.refusal(ts, "v0=" + SlackSignature.sign(Secret.of("8f742231b10e8888abcd99yyyzzz85a5"), ts, body), body));
    }

    @Test
    void aTamperedBodyFails() {
        String sig = "v0=" + SlackSignature.sign(Secret.of("8f742231b10e8888abcd99yyyzzz85a5"), ts, body);
        byte[] tampered = "token=x&command=%2Ftriage&text=approve+act-1".getBytes(StandardCharsets.UTF_8);
        assertTrue(check.refusal(ts, sig, tampered).contains("does not match"));
    }

    @Test
    void aStaleOrFutureTimestampFailsEvenWhenSigned() {
        for (long offset : new long[] {-301, 301}) {
            String old = Long.toString(NOW.getEpochSecond() + offset);
            String sig = "v0=" + SlackSignature.sign(Secret.of("8f742231b10e8888abcd99yyyzzz85a5"), old, body);
            assertTrue(check.refusal(old, sig, body).contains("5 minutes"), "offset " + offset);
        }
    }

    @Test
    void anotherSecretFails() {
        String sig = "v0=" + SlackSignature.sign(Secret.of("not-the-secret"), ts, body);
        assertNotNull(check.refusal(ts, sig, body));
        assertNotNull(check.refusal(ts, null, body));
        assertNotNull(check.refusal("yesterday", sig, body));
    }

    @Test
    void withoutASecretEverythingIsRefused() {
        SlackSignature none = new SlackSignature(Optional.empty(), Clock.fixed(NOW, ZoneOffset.UTC));
        assertTrue(none.refusal(ts, "v0=", body).contains("ACCELTRIAGE_SLACK_SIGNING_SECRET"));
    }
}
