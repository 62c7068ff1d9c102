package io.acceltriage.chat.slack;

import io.acceltriage.config.Secret;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Slack's request signing: {@code X-Slack-Signature = "v0=" + hex(HMAC-SHA256(signing secret,
 * "v0:" + X-Slack-Request-Timestamp + ":" + raw body))}, compared in constant time, and the
 * timestamp no more than five minutes away so a captured request cannot be replayed later.
 */
final class SlackSignature {

    static final Duration MAX_AGE = Duration.ofMinutes(5);

    private final Optional<Secret> secret;
    private final Clock clock;

    SlackSignature(Optional<String> secret, Clock clock) {
        this.secret = secret.filter(s -> !s.isBlank()).map(Secret::of);
        this.clock = clock;
    }

    /** Null when the request is Slack's; otherwise why it is refused. */
    String refusal(String timestamp, String signature, byte[] body) {
        if (secret.isEmpty()) {
            return "Slack is not configured: set ACCELTRIAGE_SLACK_SIGNING_SECRET";
        }
        if (timestamp == null || signature == null) {
            return "missing X-Slack-Request-Timestamp or X-Slack-Signature";
        }
        long ts;
        try {
            ts = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return "X-Slack-Request-Timestamp is not a number";
        }
        long now = clock.instant().getEpochSecond();
        // Compared as a window, not as |now - ts|: that difference overflows for a timestamp near Long.MIN_VALUE.
        if (ts < now - MAX_AGE.toSeconds() || ts > now + MAX_AGE.toSeconds()) {
            return "X-Slack-Request-Timestamp is more than 5 minutes away from now: a replay, or a clock out of sync";
        }
        byte[] expected = ("v0=" + sign(secret.get(), timestamp.trim(), body)).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, signature.trim().getBytes(StandardCharsets.US_ASCII))) {
            return "X-Slack-Signature does not match: check ACCELTRIAGE_SLACK_SIGNING_SECRET";
        }
        return null;
    }

    static String sign(Secret secret, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.reveal().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update(("v0:" + timestamp + ":").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
