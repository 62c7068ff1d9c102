package io.acceltriage.chat.teams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApprovalLinksTest {

    static final String KEY = "0123456789abcdef0123456789abcdef-test";
    static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    /** A clock the test moves. */
    static final class Hands extends Clock {
        Instant now = T0;

        @Override public ZoneId getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { return this; }
        @Override public Instant instant() { return now; }
    }

    final Hands clock = new Hands();
    final ApprovalLinks links = new ApprovalLinks(Optional.of(KEY), Duration.ofHours(1), clock);

    @Test
    void aLinkGrantsItsActionChoiceAndApproverUntilItExpires() throws Exception {
        String token = links.issue("act-42", ApprovalLinks.Choice.REJECT, "aad-1");
        ApprovalLinks.Grant g = links.check(token);
        assertEquals("act-42", g.actionId());
        assertEquals(ApprovalLinks.Choice.REJECT, g.choice());
        assertEquals("aad-1", g.approver());
        assertEquals(T0.plus(Duration.ofHours(1)), g.expires());
        assertNotEquals(g.nonce(), links.check(links.issue("act-42", ApprovalLinks.Choice.REJECT, "aad-1")).nonce());

        clock.now = T0.plus(Duration.ofMinutes(59));
        links.check(token);
        clock.now = T0.plus(Duration.ofHours(1));
        assertTrue(assertThrows(ApprovalLinks.Refused.class, () -> links.check(token)).getMessage().contains("expired"));
    }

    @Test
    void aChangedOrForeignLinkIsRefused() {
        String token = links.issue("act-42", ApprovalLinks.Choice.APPROVE, "aad-1");
        String other = links.issue("act-43", ApprovalLinks.Choice.APPROVE, "aad-1");
        // The claims of one link with the signature of another.
        String spliced = other.substring(0, other.indexOf('.')) + token.substring(token.indexOf('.'));
        assertThrows(ApprovalLinks.Refused.class, () -> links.check(spliced));
        ApprovalLinks foreign = new ApprovalLinks(Optional.of("another-key-of-at-least-32-characters!!"), Duration.ofHours(1), clock);
        assertTrue(assertThrows(ApprovalLinks.Refused.class, () -> foreign.check(token)).getMessage().contains("signature"));
        assertThrows(ApprovalLinks.Refused.class, () -> links.check("garbage"));
        assertThrows(ApprovalLinks.Refused.class, () -> links.check(null));
    }

    @Test
    void aShortKeyStopsTheStartAndNoKeyMeansARandomOne() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new ApprovalLinks(Optional.of("short"), Duration.ofHours(1), clock));
        assertTrue(e.getMessage().contains("ACCELTRIAGE_APPROVAL_SIGNING_KEY") && !e.getMessage().contains("short"));
        String token = new ApprovalLinks(Optional.empty(), Duration.ofHours(1), clock).issue("act-1", ApprovalLinks.Choice.APPROVE, "a");
        assertThrows(ApprovalLinks.Refused.class, () -> new ApprovalLinks(Optional.empty(), Duration.ofHours(1), clock).check(token));
    }
}
