package io.acceltriage.chat.teams;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TeamsSignatureTest {

    static final String TOKEN = Base64.getEncoder().encodeToString("a-32-byte-security-token-of-teams".getBytes(StandardCharsets.UTF_8));
    final TeamsSignature check = new TeamsSignature(Optional.of(TOKEN));
    final byte[] body = "{\"type\":\"message\",\"text\":\"<at>acceltriage</at> help\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void theHmacOfTheRawBodyWithTheDecodedTokenPasses() {
        assertNull(check.refusal(TeamsSignature.header(Secret.of(TOKEN), body), body));
    }

    @Test
    void aTamperedBodyOrAnotherTokenFails() {
        String header = TeamsSignature.header(Secret.of(TOKEN), body);
        assertNotNull(check.refusal(header, "{\"type\":\"message\",\"text\":\"approve act-1\"}".getBytes(StandardCharsets.UTF_8)));
        String other = Base64.getEncoder().encodeToString("another-token".getBytes(StandardCharsets.UTF_8));
        assertNotNull(check.refusal(TeamsSignature.header(Secret.of(other), body), body));
        assertNotNull(check.refusal("Bearer abc", body));
        assertNotNull(check.refusal("HMAC !!!", body));
        assertNotNull(check.refusal(null, body));
    }

    @Test
    void aTokenThatIsNotBase64StopsTheStartWithTheKey() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TeamsSignature(Optional.of("not base64!")));
        assertTrue(e.getMessage().contains("ACCELTRIAGE_TEAMS_HMAC_SECRET"));
        assertTrue(new TeamsSignature(Optional.empty()).refusal("HMAC x", body).contains("not configured"));
    }

    @Test
    void teamsMarkupIsRemovedFromTheText() {
        assertTrue(TeamsResource.plain("<at>acceltriage</at>&nbsp;status node gpu-1<br>").equals("status node gpu-1"));
    }
}
