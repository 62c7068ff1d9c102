package io.acceltriage.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** A credential that never prints itself: logs, errors and rendered config show {@code <secret>}. */
public final class Secret {
    private final String value;

    private Secret(String value) {
        this.value = value;
    }

    public static Secret of(String value) {
        return new Secret(value);
    }

    /** The raw value, for the one place that must send or check it. */
    public String reveal() {
        return value;
    }

    /** Constant-time comparison, so response timing does not leak how much of a guess was right. */
    public boolean matches(String candidate) {
        if (candidate == null) {
            return false;
        }
        return MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "<secret>";
    }
}
