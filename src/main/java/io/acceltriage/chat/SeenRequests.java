package io.acceltriage.chat;

import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

/**
 * Signed chat requests already taken, by a key of their own: a Slack event id (Slack re-delivers an
 * event it got no timely 2xx for, with X-Slack-Retry-Num), a Slack request signature (a slash command
 * or a click captured and sent again within the five minutes the signature is fresh), a Teams activity
 * id. The primary key makes the first one win, across restarts and replicas.
 */
@ApplicationScoped
public class SeenRequests {

    /** Slack retries for about an hour at most, signatures and activities are fresh for minutes; older keys can go. */
    static final Duration KEEP = Duration.ofHours(2);

    private final Database database;

    SeenRequests(Database database) {
        this.database = database;
    }

    /** True the first time a key is seen; keys are at most 100 characters (hash longer ones). */
    public boolean first(String eventId) {
        // Auto-commit: a duplicate key fails only its own statement, on H2 and PostgreSQL alike.
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into chat_events_seen (event_id, seen_at) values (?, ?)")) {
                ps.setString(1, eventId);
                ps.setTimestamp(2, Timestamp.from(Instant.now()));
                ps.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                    return false;
                }
                throw e;
            }
            try (PreparedStatement ps = c.prepareStatement("delete from chat_events_seen where seen_at < ?")) {
                ps.setTimestamp(1, Timestamp.from(Instant.now().minus(KEEP)));
                ps.executeUpdate();
            }
            return true;
        });
    }
}
