package io.acceltriage.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Retention keeps the chain verifiable, and tampering after a prune is still found, on H2 and PostgreSQL. */
class AuditPruneTest {

    static Stream<Database> stores() {
        return TestDatabases.all().stream();
    }

    /** Records 1-3, a cut-off, records 4-6; then pruned at the cut-off: 1-3 gone, checkpoint 7. */
    static AuditPruner.Pruned prunedAfterThree(Database db) throws InterruptedException {
        AuditLog log = new AuditLog(db);
        for (int i = 1; i <= 3; i++) {
            log.append("inc-old", AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", i));
        }
        Thread.sleep(5);
        Instant cut = Instant.now();
        Thread.sleep(5);
        for (int i = 4; i <= 6; i++) {
            log.append("inc-new", AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", i));
        }
        return new AuditPruner(db, log, new AuditVerifier(db)).prune(cut, "operator:test");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aPrunedLogStillVerifiesFromItsCheckpoint(Database db) throws Exception {
        AuditPruner.Pruned p = prunedAfterThree(db);
        assertEquals(3, p.deleted());
        assertEquals(3L, p.throughSeq());
        assertEquals(7L, p.checkpointSeq());

        ChainVerdict v = new AuditVerifier(db).verify();
        assertTrue(v.intact(), String.valueOf(v));
        assertEquals(4, v.records());
        assertEquals(3L, v.prunedThrough());
        AuditRecord checkpoint = new AuditReader(db).find(new AuditQuery(null, AuditKind.AUDIT_PRUNED, null, null, null, null, null, 10)).get(0);
        assertEquals("operator:test", checkpoint.actor());
        assertEquals(3, checkpoint.payload().get("throughSeq").asLong());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aChangeAfterAPruneIsStillNamed(Database db) throws Exception {
        prunedAfterThree(db);
        AuditChainTest.sql(db, "update audit_log set payload = '{\"step\":99}' where seq = 5");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertFalse(v.intact());
        assertEquals(5L, v.brokenAt());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void removingTheFirstRecordLeftAfterAPruneIsNamed(Database db) throws Exception {
        prunedAfterThree(db);
        AuditChainTest.sql(db, "delete from audit_log where seq = 4");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertEquals(4L, v.brokenAt());
        assertTrue(v.problem().contains("removed"), v.problem());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void removingTheCheckpointToHideThePruneIsFound(Database db) throws Exception {
        prunedAfterThree(db);
        AuditChainTest.sql(db, "delete from audit_log where seq = 7");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertFalse(v.intact());
        assertEquals(1L, v.brokenAt(), "without its checkpoint the log lacks its first records: " + v.problem());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void editingTheCheckpointToHideMoreDeletionsIsFound(Database db) throws Exception {
        prunedAfterThree(db);
        AuditChainTest.sql(db, "delete from audit_log where seq = 4");
        AuditChainTest.sql(db, "update audit_log set payload = replace(payload, '\"throughSeq\":3', '\"throughSeq\":4') where seq = 7");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertFalse(v.intact(), String.valueOf(v));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aSecondPruneMovesTheStartAndStillVerifies(Database db) throws Exception {
        prunedAfterThree(db);
        Thread.sleep(5);
        AuditPruner.Pruned second = new AuditPruner(db, new AuditLog(db), new AuditVerifier(db)).prune(Instant.now(), "operator:test");
        assertEquals(4, second.deleted(), "records 4-6 and the first checkpoint");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertTrue(v.intact(), String.valueOf(v));
        assertEquals(7L, v.prunedThrough());
        assertEquals(1, v.records());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aBrokenChainIsNotPruned(Database db) throws Exception {
        AuditLog log = filledAndTampered(db);
        AuditPruner pruner = new AuditPruner(db, log, new AuditVerifier(db));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pruner.prune(Instant.now(), "operator:test"));
        assertTrue(e.getMessage().contains("broken at record 2") && e.getMessage().contains("nothing was pruned"), e.getMessage());
        assertEquals(2L, new AuditVerifier(db).verify().brokenAt(), "the evidence of tampering is still there");
        assertThrows(IllegalArgumentException.class, () -> pruner.prune(Instant.now().plusSeconds(3600), "operator:test"));
    }

    private static AuditLog filledAndTampered(Database db) {
        AuditLog log = AuditChainTest.filled(db);
        AuditChainTest.sql(db, "update audit_log set actor = 'mallory' where seq = 2");
        return log;
    }
}
