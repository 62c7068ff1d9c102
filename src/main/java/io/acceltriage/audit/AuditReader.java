package io.acceltriage.audit;

import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Reads audit records back: by filter with a cursor, or all of them in order for export. */
@ApplicationScoped
public class AuditReader {

    private final Database database;

    AuditReader(Database database) {
        this.database = database;
    }

    public List<AuditRecord> find(AuditQuery q) {
        StringBuilder sql = new StringBuilder(
                "select seq, at, incident_id, kind, actor, payload, prev_hash, hash from audit_log where 1=1");
        List<Object> args = new ArrayList<>();
        if (q.incidentId() != null) { sql.append(" and incident_id = ?"); args.add(q.incidentId()); }
        if (q.kind() != null) { sql.append(" and kind = ?"); args.add(q.kind().wireName()); }
        if (q.actor() != null) { sql.append(" and actor = ?"); args.add(q.actor()); }
        if (q.since() != null) { sql.append(" and at >= ?"); args.add(Timestamp.from(q.since())); }
        if (q.until() != null) { sql.append(" and at < ?"); args.add(Timestamp.from(q.until())); }
        if (q.text() != null) { sql.append(" and lower(payload) like ?"); args.add("%" + q.text().toLowerCase() + "%"); }
        if (q.after() != null) { sql.append(" and seq > ?"); args.add(q.after()); }
        sql.append(" order by seq limit ").append(Math.max(1, q.limit()));
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                for (int i = 0; i < args.size(); i++) {
                    ps.setObject(i + 1, args.get(i));
                }
                List<AuditRecord> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(map(rs));
                    }
                }
                return out;
            }
        });
    }

    /** Streams every record in chain order, for export. */
    public void forEach(Consumer<AuditRecord> sink) {
        database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select seq, at, incident_id, kind, actor, payload, prev_hash, hash from audit_log order by seq")) {
                ps.setFetchSize(500);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sink.accept(map(rs));
                    }
                }
            }
            return null;
        });
    }

    private static AuditRecord map(ResultSet rs) throws SQLException {
        return new AuditRecord(rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getString(3),
                AuditKind.fromWireName(rs.getString(4)), rs.getString(5),
                Json.read(rs.getString(6), com.fasterxml.jackson.databind.JsonNode.class),
                rs.getString(7), rs.getString(8));
    }
}
