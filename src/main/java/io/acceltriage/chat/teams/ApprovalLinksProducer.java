package io.acceltriage.chat.teams;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/** One signer for the service, so the links cards carry are the ones the approval endpoint accepts. */
@Singleton
class ApprovalLinksProducer {

    @Produces
    @Singleton
    ApprovalLinks approvalLinks(TeamsConfig config) {
        return new ApprovalLinks(config.approvalSigningKey(), config.approvalLinkTtl(), Clock.systemUTC());
    }
}
