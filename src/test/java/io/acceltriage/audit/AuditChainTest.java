package io.acceltriage.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Tampering with any one row of the audit log is detected and the row is named, on H2 and PostgreSQL. */
class AuditChainTest {

    static Stream<Database> stores() {
        return TestDatabases.all().stream();
    }

    static AuditLog filled(Database db) {
        AuditLog log = new AuditLog(db);
        for (int i = 1; i <= 6; i++) {
            log.append("inc-" + (i % 2), AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", i, "text", "record " + i));
        }
        return log;
    }

    static void sql(Database db, String statement) {
        db.inTransaction(c -> {
            try (var st = c.createStatement()) {
                st.executeUpdate(statement);
            }
            return null;
        });
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anUntouchedChainVerifies(Database db) {
        filled(db);
        ChainVerdict v = new AuditVerifier(db).verify();
        assertTrue(v.intact(), String.valueOf(v));
        assertEquals(6, v.records());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anActorLongerThanTheColumnIsRecordedCutAndTheChainStillVerifies(Database db) {
        AuditLog log = filled(db);
        String longName = "teams:" + "a".repeat(400);
        AuditRecord r = log.append("inc-long", AuditKind.APPROVAL, longName, Map.of("action", "act-1"));
        assertEquals(AuditLog.ACTOR_MAX, r.actor().length());
        assertTrue(r.actor().startsWith("teams:aaa") && r.actor().endsWith("…"), r.actor());
        ChainVerdict v = new AuditVerifier(db).verify();
        assertTrue(v.intact(), String.valueOf(v));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aChangedPayloadIsNamed(Database db) {
        filled(db);
        sql(db, "update audit_log set payload = '{\"step\":3,\"text\":\"nothing happened\"}' where seq = 3");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertFalse(v.intact());
        assertEquals(3L, v.brokenAt());
        assertTrue(v.problem().contains("changed"), v.problem());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aChangedActorIsNamedEvenWithTheHashRecomputedNaively(Database db) {
        filled(db);
        sql(db, "update audit_log set actor = 'mallory' where seq = 4");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertEquals(4L, v.brokenAt());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aRemovedRecordIsNamed(Database db) {
        filled(db);
        sql(db, "delete from audit_log where seq = 2");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertEquals(2L, v.brokenAt());
        assertTrue(v.problem().contains("removed"), v.problem());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void theLastRecordRemovedIsNamedThroughTheHead(Database db) {
        filled(db);
        sql(db, "delete from audit_log where seq = 6");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertEquals(6L, v.brokenAt());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void anInsertedRecordIsNamed(Database db) {
        filled(db);
        // Forge a record between 3 and 4 by shifting the later ones up: the chain cannot be re-linked without the hashes.
        sql(db, "update audit_log set seq = seq + 100 where seq > 3");
        sql(db, "update audit_log set seq = seq - 99 where seq > 100");
        sql(db, "insert into audit_log (seq, at, incident_id, kind, actor, payload, prev_hash, hash) select 4, at, incident_id,"
                + " kind, 'mallory', payload, hash, hash from audit_log where seq = 3");
        ChainVerdict v = new AuditVerifier(db).verify();
        assertFalse(v.intact());
        assertEquals(4L, v.brokenAt());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void verifyingWhileRecordsAreAppendedSaysIntactEveryTime(Database db) throws Exception {
        AuditLog log = filled(db);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 2000 && !stop.get(); i++) {
                log.append("inc-load", AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", i));
            }
        });
        writer.start();
        try {
            for (int i = 0; i < 40 && writer.isAlive(); i++) {
                ChainVerdict v = new AuditVerifier(db).verify();
                assertTrue(v.intact(), "verify " + i + " under appends: " + v);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertTrue(new AuditVerifier(db).verify().intact());
    }
}
