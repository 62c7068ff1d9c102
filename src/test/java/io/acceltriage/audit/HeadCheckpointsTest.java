package io.acceltriage.audit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The head kept outside the database shows what a key cannot: newest records cut off, or the chain rebuilt before them. */
class HeadCheckpointsTest {

    static final String KEY = "checkpoint-test-chain-key-0123456789ab";

    @TempDir
    Path dir;

    static Stream<Database> stores() {
        return TestDatabases.all().stream();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void recordsCutOffAfterACheckpointAreFound(Database db) throws Exception {
        ChainKey key = new ChainKey(KEY, List.of());
        AuditLog log = new AuditLog(db, key);
        HeadCheckpoints checkpoints = new HeadCheckpoints(db, Optional.of(dir.resolve("head.jsonl").toString()), true);
        for (int i = 1; i <= 3; i++) log.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", i));
        checkpoints.write();
        log.append(null, AuditKind.DIAGNOSIS, Actors.AGENT, Map.of("step", 4));
        checkpoints.write();
        AuditVerifier verifier = new AuditVerifier(db, key, checkpoints);
        assertTrue(verifier.verify().intact(), String.valueOf(verifier.verify()));
        assertTrue(Files.readAllLines(dir.resolve("head.jsonl")).size() == 2, "one line per new head");

        // Whoever writes the database drops the newest record and moves the head back: every hash still checks.
        AuditChainTest.sql(db, "delete from audit_log where seq = 5");
        String hash4 = new AuditReader(db).find(new AuditQuery(null, null, null, null, null, null, null, 100)).stream()
                .filter(r -> r.seq() == 4).findFirst().orElseThrow().hash();
        AuditChainTest.sql(db, "update audit_head set seq = 4, hash = '" + hash4 + "' where id = 1");
        assertTrue(new AuditVerifier(db, key).verify().intact(), "without the checkpoint, nothing shows");
        ChainVerdict v = verifier.verify();
        assertFalse(v.intact());
        assertTrue(v.problem().contains("newer records were removed"), v.problem());
    }
}
