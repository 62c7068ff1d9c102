package io.acceltriage.audit;

import io.acceltriage.store.Tx;
import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Retention, the one way records leave the log. Pruning writes a checkpoint record
 * ({@code audit.pruned}) carrying the sequence number and hash of the last record it deletes, then
 * deletes every record up to it, in one transaction. The verifier starts from the latest checkpoint,
 * so the rest of the chain still verifies, and tampering after a prune is still found. The
 * checkpoint itself is chained, so it cannot be edited to hide a deletion.
 */
@ApplicationScoped
public class AuditPruner {

    /** What a prune did; {@code deleted} 0 means there was nothing older than the cut-off. */
    public record Pruned(long deleted, Long throughSeq, Long checkpointSeq) {}

    private final Database database;
    private final AuditLog log;
    private final AuditVerifier verifier;

    AuditPruner(Database database, AuditLog log, AuditVerifier verifier) {
        this.database = database;
        this.log = log;
        this.verifier = verifier;
    }

    /** Deletes the records written before {@code before}, as {@code by}. */
    public Pruned prune(Instant before, String by) {
        if (before.isAfter(Instant.now())) {
            throw new IllegalArgumentException("--before " + before + " is in the future; prune only what is already written");
        }
        ChainVerdict v = verifier.verify();
        if (!v.intact()) {
            // Pruning a broken chain could delete the very record that shows the tampering.
            throw new IllegalStateException("the audit log is broken at record " + v.brokenAt() + " (" + v.problem()
                    + "); nothing was pruned. Investigate first: pruning could delete the evidence");
        }
        return database.inTransaction(c -> {
            // The head lock first, so no record is appended between choosing the cut and writing the checkpoint.
            try (PreparedStatement ps = c.prepareStatement("select seq from audit_head where id = 1 for update")) {
                ps.executeQuery().close();
            }
            long through;
            String throughHash;
            try (PreparedStatement ps = c.prepareStatement(
                    "select seq, hash from audit_log where at < ? order by seq desc limit 1")) {
                ps.setTimestamp(1, java.sql.Timestamp.from(before));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return new Pruned(0, null, null);
                    }
                    through = rs.getLong(1);
                    throughHash = rs.getString(2);
                }
            }
            long count;
            try (PreparedStatement ps = c.prepareStatement("select count(*) from audit_log where seq <= ?")) {
                ps.setLong(1, through);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    count = rs.getLong(1);
                }
            }
            // The key the first kept record is hashed under: the record that started it may be pruned now.
            String keyAfter = ChainKey.NONE;
            try (PreparedStatement ps = c.prepareStatement(
                    "select payload from audit_log where kind = ? and seq <= ? order by seq desc limit 1")) {
                ps.setString(1, AuditKind.AUDIT_KEYED.wireName());
                ps.setLong(2, through);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        keyAfter = io.acceltriage.store.Json.read(rs.getString(1), com.fasterxml.jackson.databind.JsonNode.class)
                                .path("fingerprint").asText(ChainKey.NONE);
                    }
                }
            }
            Map<String, Object> payload = new LinkedHashMap<>();
            payload.put("before", before.toString());
            payload.put("throughSeq", through);
            payload.put("throughHash", throughHash);
            payload.put("deleted", count);
            payload.put("keyAfter", keyAfter);
            AuditRecord checkpoint = log.append(Tx.over(c), null, AuditKind.AUDIT_PRUNED, by, payload);
            try (PreparedStatement ps = c.prepareStatement("delete from audit_log where seq <= ?")) {
                ps.setLong(1, through);
                ps.executeUpdate();
            }
            return new Pruned(count, through, checkpoint.seq());
        });
    }
}
