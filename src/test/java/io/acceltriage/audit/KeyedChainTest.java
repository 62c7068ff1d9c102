package io.acceltriage.audit;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.store.Database;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The test profile keys the chain (%test.acceltriage.audit.chain-key). Someone who can write the
 * database but does not hold the key edits a record and recomputes the chain as an unkeyed chain is
 * computed: the verifier says so. Afterwards the test, which holds the key, puts the chain back for
 * the tests that follow.
 */
@QuarkusTest
class KeyedChainTest {

    @Inject
    Database database;

    @Inject
    AuditLog log;

    @Inject
    ChainKey key;

    @Test
    void anEditRecomputedWithoutTheKeyIsFoundAndTheChainNamesItsKey() {
        AuditRecord mine = log.append(null, AuditKind.POLICY_RELOADED, "KeyedChainTest", Map.of("file", "policies/test.yaml"));
        verify().body("intact", equalTo(true));
        given().spec(TestAuth.bearer(TestAuth.VIEWER)).queryParam("kind", "audit.keyed").get("/api/v1/audit").then().statusCode(200)
                .body("items.payload.fingerprint", org.hamcrest.Matchers.hasItem(key.fingerprint()));
        try {
            rewriteFrom(mine.seq(), new byte[0], "{\"file\":\"policies/permissive.yaml\"}");
            verify().body("intact", equalTo(false)).body("brokenAt", equalTo((int) mine.seq()))
                    .body("problem", containsString("changed after it was written"));
        } finally {
            rewriteFrom(mine.seq(), key.current(), null);
        }
        verify().body("intact", equalTo(true));
        assertTrue(key.keyed());
    }

    private static io.restassured.response.ValidatableResponse verify() {
        return given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit/verify").then().statusCode(200);
    }

    /**
     * Rehashes the chain from {@code from} to its head under {@code hashKey} (the empty key: plain
     * SHA-256, all an attacker without the key can do), optionally changing the first record's payload
     * first — as whoever edits the database would. Holds the head lock, so no append interleaves.
     */
    private void rewriteFrom(long from, byte[] hashKey, String newPayload) {
        database.inTransaction(c -> {
            long head;
            try (var ps = c.prepareStatement("select seq from audit_head where id = 1 for update"); var rs = ps.executeQuery()) {
                rs.next();
                head = rs.getLong(1);
            }
            if (newPayload != null) {
                try (var ps = c.prepareStatement("update audit_log set payload = ? where seq = ?")) {
                    ps.setString(1, newPayload);
                    ps.setLong(2, from);
                    ps.executeUpdate();
                }
            } else {
                try (var ps = c.prepareStatement("update audit_log set payload = ? where seq = ?")) {
                    ps.setString(1, "{\"file\":\"policies/test.yaml\"}");
                    ps.setLong(2, from);
                    ps.executeUpdate();
                }
            }
            String prev;
            try (var ps = c.prepareStatement("select hash from audit_log where seq = ?")) {
                ps.setLong(1, from - 1);
                try (var rs = ps.executeQuery()) {
                    prev = rs.next() ? rs.getString(1) : AuditVerifier.GENESIS; // the first record follows the genesis hash
                }
            }
            for (long seq = from; seq <= head; seq++) {
                String hash;
                try (var ps = c.prepareStatement("select at, incident_id, kind, actor, payload from audit_log where seq = ?")) {
                    ps.setLong(1, seq);
                    try (var rs = ps.executeQuery()) {
                        rs.next();
                        hash = AuditLog.hash(hashKey, seq, rs.getTimestamp(1).toInstant(), rs.getString(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), prev);
                    }
                }
                try (var ps = c.prepareStatement("update audit_log set prev_hash = ?, hash = ? where seq = ?")) {
                    ps.setString(1, prev);
                    ps.setString(2, hash);
                    ps.setLong(3, seq);
                    ps.executeUpdate();
                }
                prev = hash;
            }
            try (var ps = c.prepareStatement("update audit_head set hash = ? where id = 1")) {
                ps.setString(1, prev);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
