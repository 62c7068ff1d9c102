package io.acceltriage.chat.teams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import io.acceltriage.testing.BadInputs;
import io.acceltriage.testing.Gen;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A changed, forged or expired approval link never grants anything new: it is refused with a reason
 * the person who followed it can read, or (a change base64 ignores) grants exactly what the link did,
 * nonce and all, so the single use still holds. Nothing else is ever thrown.
 */
class ApprovalLinksPropertyTest {

    final ApprovalLinksTest.Hands clock = new ApprovalLinksTest.Hands();
    final ApprovalLinks links = new ApprovalLinks(Optional.of(ApprovalLinksTest.KEY), Duration.ofHours(1), clock);
    final ApprovalLinks otherKey = new ApprovalLinks(Optional.of(ApprovalLinksTest.KEY + "-other"), Duration.ofHours(1), clock);

    @Test
    void aChangedLinkGrantsNothingNew() throws Exception {
        String token = links.issue("act-0042", ApprovalLinks.Choice.APPROVE, "6f1d3a52-9b0e-4c1f-8d3a-2e5b7c9d0a11");
        ApprovalLinks.Grant genuine = links.check(token);
        Gen<String> changed = Gen.oneOf(
                r -> { // one character replaced
                    char[] c = token.toCharArray();
                    c[r.nextInt(c.length)] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/%".charAt(r.nextInt(68));
                    return new String(c);
                },
                Gen.between(0, token.length() - 1).map(n -> token.substring(0, n)),
                Gen.strings(1, 10).map(s -> token + s),
                Gen.strings(0, 120),
                r -> otherKey.issue("act-0042", ApprovalLinks.Choice.APPROVE, "6f1d3a52-9b0e-4c1f-8d3a-2e5b7c9d0a11"),
                r -> { // another link's body with this link's signature
                    String other = links.issue("act-9999", ApprovalLinks.Choice.APPROVE, "someone-else");
                    return other.substring(0, other.indexOf('.')) + token.substring(token.indexOf('.'));
                },
                Gen.of(".", "..", token.replace('.', '!'), token.substring(token.indexOf('.')), token.substring(0, token.indexOf('.') + 1)));
        Gen.forAll(31, 3000, changed, String::valueOf, t -> {
            ApprovalLinks.Grant g;
            try {
                g = links.check(t);
            } catch (ApprovalLinks.Refused e) {
                assertFalse(e.getMessage().isBlank());
                return;
            }
            assertEquals(genuine, g, "a changed link granted something else");
        });
    }

    @Test
    void anExpiredLinkIsRefusedHoweverLate() throws Exception {
        String token = links.issue("act-0043", ApprovalLinks.Choice.REJECT, "aad-1");
        Gen.forAll(32, 500, Gen.between(3600, Integer.MAX_VALUE), String::valueOf, late -> {
            clock.now = ApprovalLinksTest.T0.plusSeconds(late);
            try {
                links.check(token);
                fail("an expired link worked " + late + " s after it was issued");
            } catch (ApprovalLinks.Refused e) {
                assertFalse(e.getMessage().isBlank());
            }
        });
    }
}
