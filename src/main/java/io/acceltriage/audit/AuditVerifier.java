package io.acceltriage.audit;

import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/** Walks the chain from the first record and names the first one that was changed, removed or inserted. */
@ApplicationScoped
public class AuditVerifier {

    private final Database database;

    AuditVerifier(Database database) {
        this.database = database;
    }

    public ChainVerdict verify() {
        return database.read(c -> {
            long expectedSeq = 1;
            String prevHash = null;
            long count = 0;
            try (PreparedStatement ps = c.prepareStatement(
                    "select seq, at, incident_id, kind, actor, payload, prev_hash, hash from audit_log order by seq")) {
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
                                    : "record " + seq + " inserted out of sequence");
                        }
                        if (prevHash != null && !prevHash.equals(storedPrev)) {
                            return ChainVerdict.broken(count, seq, "record " + seq
                                    + " does not follow record " + (seq - 1) + ": a record was inserted or replaced before it");
                        }
                        String recomputed = AuditLog.hash(seq, rs.getTimestamp(2).toInstant(), rs.getString(3),
                                rs.getString(4), rs.getString(5), rs.getString(6), storedPrev);
                        if (!recomputed.equals(storedHash)) {
                            return ChainVerdict.broken(count, seq, "record " + seq + " was changed after it was written");
                        }
                        prevHash = storedHash;
                        expectedSeq = seq + 1;
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("select seq, hash from audit_head where id = 1");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                long headSeq = rs.getLong(1);
                if (headSeq != expectedSeq - 1) {
                    long at = Math.min(headSeq, expectedSeq - 1) + 1;
                    return ChainVerdict.broken(count, at, headSeq > expectedSeq - 1
                            ? "records after " + (expectedSeq - 1) + " removed: the log ends before its head (" + headSeq + ")"
                            : "record " + at + " inserted after the head (" + headSeq + ")");
                }
                if (prevHash != null && !prevHash.equals(rs.getString(2))) {
                    return ChainVerdict.broken(count, headSeq, "record " + headSeq + " does not match the chain head");
                }
            }
            return ChainVerdict.intact(count);
        });
    }
}
