package io.acceltriage.access;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Login sessions as signed cookies: name, role and expiry, with an HMAC over them. Nothing is kept on
 * the server; a session ends when it expires, when its token is withdrawn, or when its role changes.
 */
@Singleton
public class Sessions {

    public static final String COOKIE = "acceltriage_session";

    private final byte[] key;
    private final Duration ttl;
    private final AccessTokens tokens;
    private final Clock clock;

    @Inject
    Sessions(AccessConfig config, AccessTokens tokens) {
        this(keyOf(config), config.sessionTtl(), tokens, Clock.systemUTC());
    }

    Sessions(byte[] key, Duration ttl, AccessTokens tokens, Clock clock) {
        this.key = key;
        this.ttl = ttl;
        this.tokens = tokens;
        this.clock = clock;
    }

    private static byte[] keyOf(AccessConfig config) {
        Optional<String> configured = config.sessionKey().filter(k -> !k.isBlank());
        if (configured.isPresent()) {
            if (configured.get().length() < 32) {
                throw new IllegalStateException("acceltriage.access.session-key (ACCELTRIAGE_ACCESS_SESSION_KEY) has "
                        + configured.get().length() + " characters; use at least 32 (e.g. openssl rand -hex 32)");
            }
            return configured.get().getBytes(StandardCharsets.UTF_8);
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        return random;
    }

    Duration ttl() {
        return ttl;
    }

    /** The cookie value for a fresh session of this principal. */
    String issue(Principal p) {
        long expires = clock.instant().plus(ttl).getEpochSecond();
        String body = p.name() + "\n" + p.role().wireName() + "\n" + expires;
        String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(body.getBytes(StandardCharsets.UTF_8));
        return encoded + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(encoded));
    }

    /** The principal of a cookie that is genuine, unexpired and still backed by a token. */
    Optional<Principal> verify(String cookie) {
        if (cookie == null) {
            return Optional.empty();
        }
        int dot = cookie.indexOf('.');
        if (dot < 1) {
            return Optional.empty();
        }
        String encoded = cookie.substring(0, dot);
        byte[] signature;
        String[] fields;
        try {
            signature = Base64.getUrlDecoder().decode(cookie.substring(dot + 1));
            fields = new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8).split("\n", -1);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!MessageDigest.isEqual(mac(encoded), signature) || fields.length != 3) {
            return Optional.empty();
        }
        Role role = Role.parse(fields[1]);
        long expires;
        try {
            expires = Long.parseLong(fields[2]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (role == null || !clock.instant().isBefore(Instant.ofEpochSecond(expires))) {
            return Optional.empty();
        }
        Principal p = new Principal(fields[0], role);
        return tokens.stillValid(p) ? Optional.of(p) : Optional.empty();
    }

    private byte[] mac(String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
