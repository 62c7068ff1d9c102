package io.acceltriage.incident;

import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** An alert row in the inbox as the webhook leaves it (unfiled), written for tests that start after the webhook. */
final class InboxRows {

    private InboxRows() {}

    /** The new row's id. */
    static long insert(Database database, String groupKey, String fingerprint, String status, Map<String, String> labels, Instant at) {
        return database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into alerts (dedup_key, group_key, fingerprint, status, alertname, labels,"
                    + " annotations, starts_at, received_at) values (?,?,?,?,?,?,?,?,?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, "dedup-" + fingerprint + UUID.randomUUID());
                ps.setString(2, groupKey);
                ps.setString(3, fingerprint);
                ps.setString(4, status);
                ps.setString(5, labels.get("alertname"));
                ps.setString(6, Json.write(labels));
                ps.setString(7, "{}");
                ps.setTimestamp(8, Timestamp.from(at));
                ps.setTimestamp(9, Timestamp.from(at));
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        });
    }
}
