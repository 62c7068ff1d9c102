package io.acceltriage.chat.teams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.acceltriage.config.Secret;
import io.acceltriage.store.Json;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jboss.logging.Logger;

/**
 * Signed approval links for Teams cards, which cannot submit: a token naming the action, the decision,
 * the approver it was issued to, when it expires and a nonce, with an HMAC-SHA256 over all of it.
 * Checking a token proves it is ours and current; that it is used only once is the store's job
 * (the nonce is recorded when it is used).
 */
public final class ApprovalLinks {

    private static final Logger LOG = Logger.getLogger(ApprovalLinks.class);
    static final int MIN_KEY_LENGTH = 32;

    public enum Choice {
        APPROVE, REJECT;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a valid token grants: {@code approver} may {@code choice} the action, once, until {@code expires}. */
    public record Grant(String actionId, Choice choice, String approver, Instant expires, String nonce) {}

    /** Why a token is refused, said to the person who followed it. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message);
        }
    }

    private final Secret key;
    private final Duration ttl;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public ApprovalLinks(Optional<String> configuredKey, Duration ttl, Clock clock) {
        this.key = Secret.of(configuredKey.filter(k -> !k.isBlank()).map(k -> {
            if (k.length() < MIN_KEY_LENGTH) {
                throw new IllegalStateException("ACCELTRIAGE_APPROVAL_SIGNING_KEY is " + k.length()
                        + " characters long; use at least " + MIN_KEY_LENGTH + " random characters");
            }
            return k;
        }).orElseGet(() -> {
            LOG.info("approval links: ACCELTRIAGE_APPROVAL_SIGNING_KEY is unset, signing with a key made at start"
                    + " (links stop working at restart)");
            byte[] b = new byte[32];
            new SecureRandom().nextBytes(b);
            return HexFormat.of().formatHex(b);
        }));
        this.ttl = ttl;
        this.clock = clock;
    }

    public Duration ttl() {
        return ttl;
    }

    public String issue(String actionId, Choice choice, String approver) {
        byte[] n = new byte[16];
        random.nextBytes(n);
        ObjectNode claims = Json.MAPPER.createObjectNode().put("a", actionId).put("d", choice.wireName())
                .put("p", approver).put("e", clock.instant().plus(ttl).getEpochSecond()).put("n", HexFormat.of().formatHex(n));
        String body = b64(Json.write(claims).getBytes(StandardCharsets.UTF_8));
        return body + "." + b64(mac(body));
    }

    public Grant check(String token) throws Refused {
        int dot = token == null ? -1 : token.indexOf('.');
        if (dot <= 0) {
            throw new Refused("this is not an approval link of acceltriage");
        }
        String body = token.substring(0, dot);
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(token.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new Refused("this is not an approval link of acceltriage");
        }
        if (!MessageDigest.isEqual(mac(body), given)) {
            throw new Refused("the link's signature does not match: it was changed, or issued with another key");
        }
        JsonNode c;
        try {
            c = Json.read(new String(Base64.getUrlDecoder().decode(body), StandardCharsets.UTF_8), JsonNode.class);
        } catch (IllegalArgumentException e) {
            throw new Refused("this is not an approval link of acceltriage");
        }
        Instant expires = Instant.ofEpochSecond(c.path("e").asLong());
        if (!clock.instant().isBefore(expires)) {
            throw new Refused("the link expired at " + expires + "; ask for the action's status in chat for a new one");
        }
        Choice choice = "reject".equals(c.path("d").asText()) ? Choice.REJECT : Choice.APPROVE;
        return new Grant(c.path("a").asText(), choice, c.path("p").asText(), expires, c.path("n").asText());
    }

    private byte[] mac(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.reveal().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
