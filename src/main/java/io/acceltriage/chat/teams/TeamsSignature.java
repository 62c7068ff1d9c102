package io.acceltriage.chat.teams;

import io.acceltriage.config.Secret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A Teams outgoing webhook signs each request: {@code Authorization: HMAC base64(HMAC-SHA256(key, raw
 * body))}, the key being the base64-decoded security token Teams showed when the webhook was made.
 */
final class TeamsSignature {

    private final Optional<byte[]> key;
    private final String problem;

    TeamsSignature(Optional<String> securityToken) {
        Optional<String> token = securityToken.filter(t -> !t.isBlank());
        byte[] decoded = null;
        String p = null;
        if (token.isEmpty()) {
            p = "Teams is not configured: set ACCELTRIAGE_TEAMS_HMAC_SECRET";
        } else {
            try {
                decoded = Base64.getDecoder().decode(token.get().trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("ACCELTRIAGE_TEAMS_HMAC_SECRET is not base64: paste the security token"
                        + " exactly as Teams showed it");
            }
        }
        this.key = Optional.ofNullable(decoded);
        this.problem = p;
    }

    /** Null when the request is signed with our token; otherwise why it is refused. */
    String refusal(String authorization, byte[] body) {
        if (key.isEmpty()) {
            return problem;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "HMAC ", 0, 5)) {
            return "missing Authorization: HMAC … header";
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(authorization.substring(5).trim());
        } catch (IllegalArgumentException e) {
            return "the HMAC in the Authorization header is not base64";
        }
        if (!MessageDigest.isEqual(mac(key.get(), body), given)) {
            return "the HMAC does not match: check ACCELTRIAGE_TEAMS_HMAC_SECRET";
        }
        return null;
    }

    static byte[] mac(byte[] key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    /** For tests and tools: the header Teams would send for {@code body}. */
    static String header(Secret securityToken, byte[] body) {
        return "HMAC " + Base64.getEncoder().encodeToString(mac(Base64.getDecoder().decode(securityToken.reveal()), body));
    }

    @Override
    public String toString() {
        return "TeamsSignature[" + (key.isPresent() ? "<secret>" : "unset") + "]";
    }
}
