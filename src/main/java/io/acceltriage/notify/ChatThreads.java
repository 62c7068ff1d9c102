package io.acceltriage.notify;

import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/**
 * The message that stands for an incident in a chat channel (Slack: channel id and ts) and the last
 * event told there, so a later notice updates that message instead of posting another.
 */
@ApplicationScoped
public class ChatThreads {

    /** {@code conversation} and {@code messageRef} are the channel's own ids (Slack: channel, ts). */
    public record Thread(String conversation, String messageRef, String lastEvent) {}

    private final Database database;

    ChatThreads(Database database) {
        this.database = database;
    }

    public Optional<Thread> find(String incidentId, String channel) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select conversation, message_ref, last_event from chat_threads where incident_id = ? and channel = ?")) {
                ps.setString(1, incidentId);
                ps.setString(2, channel);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Thread(rs.getString(1), rs.getString(2), rs.getString(3)))
                            : Optional.empty();
                }
            }
        });
    }

    /**
     * Insert or update; each channel's single sender thread is the only writer of its rows. A fleet
     * notice (the breaker tripping) has no incident and so no thread: each is a message of its own.
     * Storing it would fail, and the channel's queue would retry it ahead of everything else.
     */
    public void save(String incidentId, String channel, Thread t) {
        if (incidentId == null) return;
        database.inTransaction(c -> {
            Timestamp now = Timestamp.from(Instant.now());
            try (PreparedStatement ps = c.prepareStatement("update chat_threads set conversation = ?, message_ref = ?,"
                    + " last_event = ?, updated_at = ? where incident_id = ? and channel = ?")) {
                ps.setString(1, t.conversation());
                ps.setString(2, t.messageRef());
                ps.setString(3, t.lastEvent());
                ps.setTimestamp(4, now);
                ps.setString(5, incidentId);
                ps.setString(6, channel);
                if (ps.executeUpdate() > 0) {
                    return null;
                }
            }
            try (PreparedStatement ps = c.prepareStatement("insert into chat_threads (incident_id, channel, conversation,"
                    + " message_ref, last_event, updated_at) values (?,?,?,?,?,?)")) {
                ps.setString(1, incidentId);
                ps.setString(2, channel);
                ps.setString(3, t.conversation());
                ps.setString(4, t.messageRef());
                ps.setString(5, t.lastEvent());
                ps.setTimestamp(6, now);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
