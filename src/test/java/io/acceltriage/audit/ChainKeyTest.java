package io.acceltriage.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A keyed chain: started on an unkeyed one, rotated, pruned past its key record, and what it refuses. */
class ChainKeyTest {

    static final String FIRST = "first-chain-key-0123456789abcdef-0123";
    static final String SECOND = "second-chain-key-0123456789abcdef-012";

    static Stream<Database> stores() {
        return TestDatabases.all().stream();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aChainKeyedLaterAndRotatedVerifiesWithItsKeysAndNotWithout(Database db) throws Exception {
        new AuditLog(db).append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", "unkeyed"));
        ChainKey first = new ChainKey(FIRST, List.of());
        new AuditLog(db, first).append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", "first key"));
        ChainKey second = new ChainKey(SECOND, List.of(FIRST));
        AuditLog rotated = new AuditLog(db, second);
        rotated.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", "second key"));
        // 1 unkeyed, 2 audit.keyed (first), 3 under it, 4 audit.keyed (second), 5 under it
        assertTrue(new AuditVerifier(db, second).verify().intact(), String.valueOf(new AuditVerifier(db, second).verify()));
        ChainVerdict withoutTheOldKey = new AuditVerifier(db, new ChainKey(SECOND, List.of())).verify();
        assertFalse(withoutTheOldKey.intact());
        assertEquals(2, withoutTheOldKey.brokenAt());
        assertTrue(withoutTheOldKey.problem().contains("does not hold"), withoutTheOldKey.problem());
        assertFalse(new AuditVerifier(db).verify().intact(), "an unkeyed verifier cannot vouch for keyed records");

        // Pruned past both key records: the checkpoint says which key the first kept record is under.
        Thread.sleep(5);
        Instant cut = Instant.now();
        Thread.sleep(5);
        rotated.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", "kept"));
        new AuditPruner(db, rotated, new AuditVerifier(db, second)).prune(cut, "operator:test");
        ChainVerdict pruned = new AuditVerifier(db, second).verify();
        assertTrue(pruned.intact(), String.valueOf(pruned));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aKeyedChainRecomputedWithoutTheKeyIsRefusedEvenWhenEveryHashChecksOut(Database db) {
        ChainKey key = new ChainKey(FIRST, List.of());
        AuditLog log = new AuditLog(db, key);
        log.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", 1));
        log.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", 2));
        // Whoever writes the database drops the key record and rebuilds the chain unkeyed from scratch.
        AuditChainTest.sql(db, "delete from audit_log");
        AuditChainTest.sql(db, "update audit_head set seq = 0, hash = '" + AuditVerifier.GENESIS + "', key_fingerprint = 'none'");
        new AuditLog(db).append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", "forged"));
        assertTrue(new AuditVerifier(db).verify().intact(), "unkeyed, the forgery checks out");
        ChainVerdict v = new AuditVerifier(db, key).verify();
        assertFalse(v.intact());
        assertTrue(v.problem().contains("not the configured key"), v.problem());
    }

    @org.junit.jupiter.api.Test
    void aShortKeyIsRefusedAtStart() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ChainKey("short", List.of()));
        assertTrue(e.getMessage().contains("at least 32"), e.getMessage());
    }
}
