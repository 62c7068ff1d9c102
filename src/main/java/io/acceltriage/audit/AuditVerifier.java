package io.acceltriage.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Walks the chain from its start and names the first record that was changed, removed or inserted.
 * The start is the first record ever, or, after retention pruned the log, the record after the one
 * the latest {@code audit.pruned} checkpoint names, linked to that record's hash.
 */
@ApplicationScoped
public class AuditVerifier {

    /** The prev_hash of the very first record (the head's initial value, migration V1). */
    static final String GENESIS = "0".repeat(64);

    private final Database database;
    private final ChainKey key;
    private final HeadCheckpoints checkpoints;

    @jakarta.inject.Inject
    AuditVerifier(Database database, ChainKey key, HeadCheckpoints checkpoints) {
        this.database = database;
        this.key = key;
        this.checkpoints = checkpoints;
    }

    AuditVerifier(Database database, ChainKey key) {
        this(database, key, null);
    }

    AuditVerifier(Database database) {
        this(database, ChainKey.none());
    }

    public ChainVerdict verify() {
        return database.read(c -> {
            long expectedSeq = 1;
            String prevHash = GENESIS;
            String startKey = ChainKey.NONE;
            Long prunedThrough = null;
            try (PreparedStatement ps = c.prepareStatement(
                    "select payload from audit_log where kind = ? order by seq desc limit 1")) {
                ps.setString(1, AuditKind.AUDIT_PRUNED.wireName());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        // The checkpoint's own hash is checked on the walk, so a forged start shows up there.
                        JsonNode checkpoint = Json.read(rs.getString(1), JsonNode.class);
                        prunedThrough = checkpoint.path("throughSeq").asLong();
                        expectedSeq = prunedThrough + 1;
                        prevHash = checkpoint.path("throughHash").asText();
                        startKey = checkpoint.path("keyAfter").asText(ChainKey.NONE);
                    }
                }
            }
            final Long pruned = prunedThrough;
            // The head first, then the records up to it: an append commits its record and the head
            // together, so every record up to the head read here is visible, and records appended while
            // the walk runs lie beyond it instead of looking like records removed before the head.
            long headSeq;
            String headHash;
            try (PreparedStatement ps = c.prepareStatement("select seq, hash from audit_head where id = 1");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                headSeq = rs.getLong(1);
                headHash = rs.getString(2);
            }
            long count = 0;
            String underKey = startKey;
            try (PreparedStatement ps = c.prepareStatement(
                    "select seq, at, incident_id, kind, actor, payload, prev_hash, hash from audit_log where seq <= ? order by seq")) {
                ps.setLong(1, headSeq);
                ps.setFetchSize(500);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        count++;
                        long seq = rs.getLong(1);
                        String storedPrev = rs.getString(7);
                        String storedHash = rs.getString(8);
                        if (seq != expectedSeq) {
                            return ChainVerdict.broken(count, expectedSeq, seq > expectedSeq
                                    ? "record " + expectedSeq + (seq - expectedSeq > 1 ? " to " + (seq - 1) : "") + " removed: the chain jumps to " + seq
                                    : "record " + seq + " inserted out of sequence", pruned);
                        }
                        if (!prevHash.equals(storedPrev)) {
                            return ChainVerdict.broken(count, seq, "record " + seq
                                    + " does not follow record " + (seq - 1) + ": a record was inserted or replaced before it", pruned);
                        }
                        if (AuditKind.AUDIT_KEYED.wireName().equals(rs.getString(4))) {
                            underKey = Json.read(rs.getString(6), JsonNode.class).path("fingerprint").asText(ChainKey.NONE);
                        }
                        var k = key.byFingerprint(underKey);
                        if (k.isEmpty()) {
                            return ChainVerdict.broken(count, seq, "record " + seq + " is hashed under key " + underKey
                                    + ", which this verifier does not hold: set ACCELTRIAGE_AUDIT_CHAIN_KEY, or list a rotated key in"
                                    + " ACCELTRIAGE_AUDIT_PREVIOUS_CHAIN_KEYS", pruned);
                        }
                        String recomputed = AuditLog.hash(k.get(), seq, rs.getTimestamp(2).toInstant(), rs.getString(3),
                                rs.getString(4), rs.getString(5), rs.getString(6), storedPrev);
                        if (!recomputed.equals(storedHash)) {
                            return ChainVerdict.broken(count, seq, "record " + seq + " was changed after it was written", pruned);
                        }
                        prevHash = storedHash;
                        expectedSeq = seq + 1;
                    }
                }
            }
            if (headSeq != expectedSeq - 1) {
                long at = Math.min(headSeq, expectedSeq - 1) + 1;
                return ChainVerdict.broken(count, at, "records after " + (expectedSeq - 1) + " removed: the log ends before its head ("
                        + headSeq + ")", pruned);
            }
            if (count > 0 && !prevHash.equals(headHash)) {
                return ChainVerdict.broken(count, headSeq, "record " + headSeq + " does not match the chain head", pruned);
            }
            // Without this, whoever can write the database drops the keyed records, recomputes the rest
            // unkeyed, and every hash checks out. The service starts its key at once, so a chain under
            // the configured key ends under it.
            if (key.keyed() && count > 0 && !underKey.equals(key.fingerprint())) {
                return ChainVerdict.broken(count, headSeq, "the chain ends under key " + underKey + ", not the configured key "
                        + key.fingerprint() + ": its keyed records were removed or rewritten by someone without the key", pruned);
            }
            if (checkpoints != null) {
                java.util.Optional<String> off = checkpoints.disagreement(c, headSeq, pruned);
                if (off.isPresent()) {
                    return ChainVerdict.broken(count, headSeq, off.get(), pruned);
                }
            }
            // A record beyond the head as it is now was not appended through the chain. The highest
            // record is read before the head: a concurrent append moves the head past its own record.
            long highest;
            try (PreparedStatement ps = c.prepareStatement("select coalesce(max(seq), 0) from audit_log");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                highest = rs.getLong(1);
            }
            try (PreparedStatement ps = c.prepareStatement("select seq from audit_head where id = 1");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                long headNow = rs.getLong(1);
                if (highest > headNow) {
                    return ChainVerdict.broken(count, headNow + 1, "record " + (headNow + 1) + " inserted after the head (" + headNow + ")",
                            pruned);
                }
            }
            return ChainVerdict.intact(count, pruned);
        });
    }
}
