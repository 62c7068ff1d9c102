package io.acceltriage.access;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

@ConfigMapping(prefix = "acceltriage.access")
public interface AccessConfig {
    /**
     * Who may use the API and the pages (ACCELTRIAGE_ACCESS_TOKENS): comma-separated
     * {@code name:role:token} entries, role one of viewer, approver, admin.
     */
    Optional<String> tokens();

    /** A file of {@code name:role:token} lines (ACCELTRIAGE_ACCESS_FILE); # starts a comment. Adds to tokens. */
    Optional<String> file();

    /**
     * Key that signs login sessions (ACCELTRIAGE_ACCESS_SESSION_KEY), at least 32 characters. Unset: a
     * random key per start, so sessions end at a restart and do not carry over between replicas.
     */
    Optional<String> sessionKey();

    /** How long a login session lasts (ACCELTRIAGE_ACCESS_SESSION_TTL). */
    @WithDefault("12h")
    Duration sessionTtl();
}
