package io.acceltriage.audit;

import io.acceltriage.store.Tx;
import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The append-only, hash-chained decision record. Each record's hash covers its own fields and the
 * previous record's hash, so changing, removing or inserting a row breaks the chain from there on.
 * Nothing in the service updates or deletes a record.
 */
@ApplicationScoped
public class AuditLog {

    /** The width of audit_log.actor. */
    static final int ACTOR_MAX = 256;

    private final Database database;

    AuditLog(Database database) {
        this.database = database;
    }

    /** Appends in a transaction of its own. */
    public AuditRecord append(String incidentId, AuditKind kind, String actor, Object payload) {
        return database.inTransaction(c -> append(Tx.over(c), incidentId, kind, actor, payload));
    }

    /**
     * Appends inside the caller's transaction, so a fact and its audit record are stored together or
     * not at all. The head row lock serialises appenders across threads and replicas.
     */
    public AuditRecord append(Tx tx, String incidentId, AuditKind kind, String actor, Object payload) {
        return tx.sql(c -> {
            return appendAll(Tx.over(c), List.of(new Entry(incidentId, kind, actor, payload))).get(0);
        });
    }

    /** One record to append; {@link #appendAll} chains several under one hold of the head lock. */
    public record Entry(String incidentId, AuditKind kind, String actor, Object payload) {}

    /**
     * Appends several records in order inside the caller's transaction, taking the head lock once and
     * writing them in one batch: a webhook delivery of many alerts holds the lock for one round trip
     * rather than three per alert, which is what bounds ingest under a storm.
     */
    public List<AuditRecord> appendAll(Tx tx, List<Entry> entries) {
        return tx.sql(c -> {
            if (entries.isEmpty()) return List.of();
            long seq;
            String prevHash;
            try (PreparedStatement ps = c.prepareStatement("select seq, hash from audit_head where id = 1 for update");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                seq = rs.getLong(1);
                prevHash = rs.getString(2);
            }
            List<AuditRecord> out = new ArrayList<>(entries.size());
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into audit_log (seq, at, incident_id, kind, actor, payload, prev_hash, hash) values (?,?,?,?,?,?,?,?)")) {
                for (Entry e : entries) {
                    seq++;
                    String actor = fitted(e.actor());
                    // Microseconds: what both H2 and PostgreSQL store exactly, so a re-read hashes the same.
                    Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);
                    JsonNode node = Json.MAPPER.valueToTree(e.payload());
                    String json = Json.write(node);
                    String hash = hash(seq, at, e.incidentId(), e.kind().wireName(), actor, json, prevHash);
                    ps.setLong(1, seq);
                    ps.setTimestamp(2, Timestamp.from(at));
                    ps.setString(3, e.incidentId());
                    ps.setString(4, e.kind().wireName());
                    ps.setString(5, actor);
                    ps.setString(6, json);
                    ps.setString(7, prevHash);
                    ps.setString(8, hash);
                    ps.addBatch();
                    out.add(new AuditRecord(seq, at, e.incidentId(), e.kind(), actor, node, prevHash, hash));
                    prevHash = hash;
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("update audit_head set seq = ?, hash = ? where id = 1")) {
                ps.setLong(1, seq);
                ps.setString(2, prevHash);
                ps.executeUpdate();
            }
            return out;
        });
    }

    /**
     * An actor as the column holds it: a name from a chat platform or a token file longer than that is
     * cut and marked, because refusing the record would also undo the fact it records.
     */
    static String fitted(String actor) {
        return actor.length() <= ACTOR_MAX ? actor : actor.substring(0, ACTOR_MAX - 1) + "…";
    }

    static String hash(long seq, Instant at, String incidentId, String kind, String actor, String payload, String prevHash) {
        String canonical = String.join("\n", Long.toString(seq), at.toString(),
                incidentId == null ? "" : incidentId, kind, actor, payload, prevHash);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
