package io.acceltriage.chat.teams;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Optional;

/** Microsoft Teams: the outgoing webhook people talk to, the Workflows webhook notifications go to. */
@ConfigMapping(prefix = "acceltriage")
public interface TeamsConfig {

    /** The outgoing webhook's security token, base64 as Teams shows it (ACCELTRIAGE_TEAMS_HMAC_SECRET). */
    @WithName("teams.hmac-secret")
    Optional<String> hmacSecret();

    /** The Workflows webhook URL notifications are posted to (ACCELTRIAGE_TEAMS_WEBHOOK_URL); unset: none. */
    @WithName("teams.webhook-url")
    Optional<String> webhookUrl();

    /**
     * Key that signs approval links (ACCELTRIAGE_APPROVAL_SIGNING_KEY, at least 32 characters). Unset:
     * a random key is made at start, and links issued before a restart stop working.
     */
    @WithName("approval.signing-key")
    Optional<String> approvalSigningKey();

    /** How long an approval link works (ACCELTRIAGE_APPROVAL_LINK_TTL). */
    @WithName("approval.link-ttl")
    @WithDefault("PT1H")
    Duration approvalLinkTtl();
}
