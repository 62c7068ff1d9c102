package io.acceltriage.chat.teams;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.acceltriage.config.Secret;
import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A Teams request not signed with our token is refused with a reason, whatever its header or body. */
class TeamsBadInputPropertyTest {

    static final String TOKEN = Base64.getEncoder().encodeToString("teams-outgoing-webhook-token".getBytes(StandardCharsets.UTF_8));
    static final byte[] BODY = BadInputs.utf8("{\"type\":\"message\",\"text\":\"<at>acceltriage</at> approve act-0001\","
            + "\"from\":{\"aadObjectId\":\"6f1d3a52-9b0e-4c1f-8d3a-2e5b7c9d0a11\"}}");
    final TeamsSignature check = new TeamsSignature(Optional.of(TOKEN));

    record Request(String authorization, byte[] body) {
        @Override
        public String toString() {
            return authorization + " " + BadInputs.show(body);
        }
    }

    @Test
    void aRequestNotSignedWithOurTokenIsRefused() {
        String good = TeamsSignature.header(Secret.of(TOKEN), BODY);
        String other = Base64.getEncoder().encodeToString("another-token".getBytes(StandardCharsets.UTF_8));
        Gen<Request> forged = Gen.oneOf(
                BadInputs.jsonMutationsOf(new String(BODY, StandardCharsets.UTF_8)).filter(b -> !Arrays.equals(b, BODY))
                        .map(b -> new Request(good, b)),
                Gen.strings(0, 80).filter(s -> !s.equals(good)).map(s -> new Request(s, BODY)),
                Gen.strings(0, 60).map(s -> new Request("HMAC " + s, BODY)),
                Gen.of(null, "", "HMAC", "HMAC ", "hmac", "Bearer " + good.substring(5), good.substring(0, good.length() - 2),
                        "HMAC " + good.substring(5, 20), TeamsSignature.header(Secret.of(other), BODY)).map(h -> new Request(h, BODY)));
        Gen.forAll(21, 3000, forged, Request::toString, q -> {
            String refusal = check.refusal(q.authorization(), q.body());
            assertNotNull(refusal, "a forged request passed");
            assertFalse(refusal.isBlank());
        });
        assertNull(check.refusal(good, BODY), "the genuine request passes");
    }
}
