package io.acceltriage.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.ClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Operators' token lists are checked at start with errors that name the place and never the token. */
class AccessTokensTest {

    static final String ALICE = "alice-secret-token-0001";
    static final String BOB = "bob-secret-token-000002";

    static AccessTokens tokens(String list, String file) {
        AccessConfig config = new AccessConfig() {
            public Optional<String> tokens() { return Optional.ofNullable(list); }
            public Optional<String> file() { return Optional.ofNullable(file); }
            public Optional<String> sessionKey() { return Optional.empty(); }
            public Duration sessionTtl() { return Duration.ofHours(12); }
        };
        ClusterConfig cluster = new ClusterConfig() {
            public Mode mode() { return Mode.SANDBOX; }
            public java.util.Optional<Integer> exporterPort() { return java.util.Optional.empty(); }
            public Duration requestTimeout() { return Duration.ofSeconds(10); }
            public int requestRetries() { return 2; }
        };
        return new AccessTokens(config, cluster);
    }

    @Test
    void eachTokenAuthenticatesAsItsNamedRole() {
        AccessTokens t = tokens("alice:approver:" + ALICE + ", bob:viewer:" + BOB, null);
        assertEquals(Optional.of(new Principal("alice", Role.APPROVER)), t.authenticate(ALICE));
        assertEquals(Optional.of(new Principal("bob", Role.VIEWER)), t.authenticate(BOB));
        assertEquals(Optional.empty(), t.authenticate(ALICE.substring(1)));
        assertEquals(Optional.empty(), t.generated(), "configured tokens mean nothing is generated");
    }

    @Test
    void withNoTokensAnAdminTokenIsGeneratedForTheRun() {
        AccessTokens t = tokens(null, null);
        String generated = t.generated().orElseThrow().reveal();
        assertEquals(48, generated.length());
        assertEquals(Role.ADMIN, t.authenticate(generated).orElseThrow().role());
    }

    @Test
    void aFileAddsTokensAndErrorsNameItsLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("tokens");
        Files.writeString(f, "# on-call\ncarol:admin:" + ALICE + "\n\n");
        assertEquals("carol", tokens(null, f.toString()).authenticate(ALICE).orElseThrow().name());

        Files.writeString(f, "# on-call\ncarol:boss:" + ALICE + "\n");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> tokens(null, f.toString()));
        assertEquals(f + ":2: role 'boss' of 'carol' is not viewer, approver or admin", e.getMessage());
        assertFalse(e.getMessage().contains(ALICE), "an error never shows the token");
    }

    @Test
    void badEntriesAreRefusedWithTheReasonAndNeverTheToken() {
        String where = "acceltriage.access.tokens (ACCELTRIAGE_ACCESS_TOKENS) entry 2";
        List<String[]> cases = List.of(
                new String[] {"alice:approver:" + ALICE + ",bob:" + BOB, where + ": expected name:role:token"},
                new String[] {"alice:approver:" + ALICE + ",bob:viewer:short", where + ": the token of 'bob' has 5 characters; use at least 16"},
                new String[] {"alice:approver:" + ALICE + ",alice:viewer:" + BOB, "the name 'alice' is given twice"},
                new String[] {"alice:approver:" + ALICE + ",bob:viewer:" + ALICE, "share one token"});
        for (String[] c : cases) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> tokens(c[0], null), c[0]);
            assertTrue(e.getMessage().contains(c[1]), e.getMessage());
            assertFalse(e.getMessage().contains(ALICE) || e.getMessage().contains(BOB), e.getMessage());
        }
    }

    @Test
    void aSessionEndsWhenItExpiresIsForgedItsTokenIsWithdrawnOrReplacedOrItSignsOut() {
        AccessTokens t = tokens("alice:approver:" + ALICE, null);
        RevokedSessions revoked = new RevokedSessions(io.acceltriage.store.TestDatabases.h2());
        byte[] key = "k".repeat(32).getBytes();
        Instant now = Instant.parse("2026-11-30T03:00:00Z");
        Sessions sessions = new Sessions(key, Duration.ofHours(12), t, revoked, Clock.fixed(now, ZoneOffset.UTC));
        String cookie = sessions.issue(new Principal("alice", Role.APPROVER), ALICE);
        assertEquals("alice", sessions.verify(cookie).orElseThrow().name());

        Sessions later = new Sessions(key, Duration.ofHours(12), t, revoked, Clock.fixed(now.plus(Duration.ofHours(13)), ZoneOffset.UTC));
        assertTrue(later.verify(cookie).isEmpty(), "expired");
        Sessions otherKey = new Sessions("x".repeat(32).getBytes(), Duration.ofHours(12), t, revoked, Clock.fixed(now, ZoneOffset.UTC));
        assertTrue(otherKey.verify(cookie).isEmpty(), "signed with another key");
        String promoted = sessions.issue(new Principal("alice", Role.ADMIN), ALICE);
        assertTrue(sessions.verify(promoted).isEmpty(), "a role the token does not carry");
        Sessions withdrawn = new Sessions(key, Duration.ofHours(12), tokens("bob:viewer:" + BOB, null), revoked, Clock.fixed(now, ZoneOffset.UTC));
        assertTrue(withdrawn.verify(cookie).isEmpty(), "alice's token was withdrawn");
        Sessions rotated = new Sessions(key, Duration.ofHours(12), tokens("alice:approver:alice-rotated-token-0003", null), revoked,
                Clock.fixed(now, ZoneOffset.UTC));
        assertTrue(rotated.verify(cookie).isEmpty(), "alice's token was replaced: same name and role, another token");

        String otherBrowser = sessions.issue(new Principal("alice", Role.APPROVER), ALICE);
        sessions.end(cookie);
        assertTrue(sessions.verify(cookie).isEmpty(), "signed out");
        assertEquals("alice", sessions.verify(otherBrowser).orElseThrow().name(), "signing out ends that session only");
        sessions.end(cookie);
        sessions.end("not-a-cookie");
        assertTrue(sessions.verify(cookie).isEmpty(), "signing out twice, or with a forged cookie, changes nothing");
    }
}
