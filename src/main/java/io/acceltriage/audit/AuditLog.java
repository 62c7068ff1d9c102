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
    private final ChainKey key;

    @jakarta.inject.Inject
    AuditLog(Database database, ChainKey key) {
        this.database = database;
        this.key = key;
    }

    /** An unkeyed chain, as tests that predate keys build it. */
    AuditLog(Database database) {
        this(database, ChainKey.none());
    }

    /**
     * Starts the configured key now, if the chain is not under it yet, so a verifier holding the key
     * finds the chain's end under it even before anything else is appended.
     */
    public void useConfiguredKey() {
        if (key.keyed()) database.inTransaction(c -> appendAll(Tx.over(c), List.of()));
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
        // The payloads are written out before the head is taken: every other appender (webhooks, the filer, triages,
        // on every replica) waits while it is held, so it is held for the chaining and the rows only.
        List<JsonNode> nodes = new ArrayList<>(entries.size());
        List<String> jsons = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            JsonNode node = Json.MAPPER.valueToTree(e.payload());
            nodes.add(node);
            jsons.add(Json.write(node));
        }
        return tx.sql(c -> {
            long seq;
            String prevHash;
            String inEffect;
            try (PreparedStatement ps = c.prepareStatement("select seq, hash, key_fingerprint from audit_head where id = 1 for update");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                seq = rs.getLong(1);
                prevHash = rs.getString(2);
                inEffect = rs.getString(3);
            }
            List<Entry> all = entries;
            if (key.keyed() && !key.fingerprint().equals(inEffect)) {
                // The first record under a new key says so, and is itself hashed under it.
                all = new ArrayList<>(entries.size() + 1);
                all.add(new Entry(null, AuditKind.AUDIT_KEYED, Actors.AGENT,
                        java.util.Map.of("fingerprint", key.fingerprint(), "previous", inEffect)));
                all.addAll(entries);
            }
            if (all.isEmpty()) return List.of();
            List<AuditRecord> out = new ArrayList<>(entries.size());
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into audit_log (seq, at, incident_id, kind, actor, payload, prev_hash, hash) values (?,?,?,?,?,?,?,?)")) {
                boolean prepended = all.size() > entries.size();
                for (int i = 0; i < all.size(); i++) {
                    Entry e = all.get(i);
                    seq++;
                    String actor = fitted(e.actor());
                    // Microseconds: what both H2 and PostgreSQL store exactly, so a re-read hashes the same.
                    Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);
                    int own = prepended ? i - 1 : i;
                    JsonNode node = own < 0 ? Json.MAPPER.valueToTree(e.payload()) : nodes.get(own);
                    String json = own < 0 ? Json.write(node) : jsons.get(own);
                    String hash = hash(key.current(), seq, at, e.incidentId(), e.kind().wireName(), actor, json, prevHash);
                    ps.setLong(1, seq);
                    ps.setTimestamp(2, Timestamp.from(at));
                    ps.setString(3, e.incidentId());
                    ps.setString(4, e.kind().wireName());
                    ps.setString(5, actor);
                    ps.setString(6, json);
                    ps.setString(7, prevHash);
                    ps.setString(8, hash);
                    ps.addBatch();
                    if (!(prepended && i == 0)) { // callers get the records they asked for
                        out.add(new AuditRecord(seq, at, e.incidentId(), e.kind(), actor, node, prevHash, hash));
                    }
                    prevHash = hash;
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("update audit_head set seq = ?, hash = ?, key_fingerprint = ? where id = 1")) {
                ps.setLong(1, seq);
                ps.setString(2, prevHash);
                ps.setString(3, key.keyed() ? key.fingerprint() : inEffect);
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

    /** A record's hash: HMAC-SHA256 under {@code key}, or plain SHA-256 for the empty key (an unkeyed chain). */
    static String hash(byte[] key, long seq, Instant at, String incidentId, String kind, String actor, String payload, String prevHash) {
        String canonical = String.join("\n", Long.toString(seq), at.toString(),
                incidentId == null ? "" : incidentId, kind, actor, payload, prevHash);
        return ChainKey.hash(key, canonical);
    }
}
