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
 * Login sessions as signed cookies: a session id, name, role, expiry and a fingerprint of the token the
 * person signed in with, with an HMAC over them. A session ends when it expires, when its token is
 * withdrawn or replaced (a rotated token ends every session opened with the old one, even under the same
 * name and role), when its role changes, or when the person signs out (the one thing kept on the server:
 * {@link RevokedSessions}, in the database so every replica knows).
 */
@Singleton
public class Sessions {

    public static final String COOKIE = "acceltriage_session";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private final byte[] key;
    private final Duration ttl;
    private final AccessTokens tokens;
    private final RevokedSessions revoked;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    @Inject
    Sessions(AccessConfig config, AccessTokens tokens, RevokedSessions revoked) {
        this(keyOf(config), config.sessionTtl(), tokens, revoked, Clock.systemUTC());
    }

    Sessions(byte[] key, Duration ttl, AccessTokens tokens, RevokedSessions revoked, Clock clock) {
        this.key = key;
        this.ttl = ttl;
        this.tokens = tokens;
        this.revoked = revoked;
        this.clock = clock;
    }

    /** A session cookie's fields, once its signature checked out. */
    private record Session(String id, Principal principal, Instant expires, String tokenFingerprint) {}

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

    /** The cookie value for a fresh session of this principal, who signed in with this token. */
    String issue(Principal p, String token) {
        byte[] id = new byte[12];
        random.nextBytes(id);
        long expires = clock.instant().plus(ttl).getEpochSecond();
        String body = B64.encodeToString(id) + "\n" + p.name() + "\n" + p.role().wireName() + "\n" + expires + "\n"
                + fingerprint(token);
        String encoded = B64.encodeToString(body.getBytes(StandardCharsets.UTF_8));
        return encoded + "." + B64.encodeToString(mac(encoded));
    }

    /** The principal of a cookie that is genuine, unexpired, not signed out and still backed by the same token. */
    Optional<Principal> verify(String cookie) {
        return read(cookie)
                .filter(s -> tokens.stillIssued(s.principal(), token -> MessageDigest.isEqual(
                        fingerprint(token.reveal()).getBytes(StandardCharsets.UTF_8),
                        s.tokenFingerprint().getBytes(StandardCharsets.UTF_8))))
                .filter(s -> !revoked.revoked(s.id()))
                .map(Session::principal);
    }

    /** Signs the cookie's session out everywhere; a cookie that is not genuine changes nothing. */
    void end(String cookie) {
        read(cookie).ifPresent(s -> revoked.revoke(s.id(), s.expires(), clock.instant()));
    }

    private Optional<Session> read(String cookie) {
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
        if (!MessageDigest.isEqual(mac(encoded), signature) || fields.length != 5) {
            return Optional.empty();
        }
        Role role = Role.parse(fields[2]);
        long expires;
        try {
            expires = Long.parseLong(fields[3]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (role == null || !clock.instant().isBefore(Instant.ofEpochSecond(expires))) {
            return Optional.empty();
        }
        return Optional.of(new Session(fields[0], new Principal(fields[1], role), Instant.ofEpochSecond(expires), fields[4]));
    }

    /** Which token a session came from, without the cookie carrying anything that helps guess it. */
    private String fingerprint(String token) {
        byte[] full = mac("token\n" + token);
        return B64.encodeToString(java.util.Arrays.copyOf(full, 16));
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
