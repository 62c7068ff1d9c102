package io.acceltriage.access;

import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Sessions ended by signing out, remembered until they would have expired: a copied cookie dies with its session. */
@ApplicationScoped
class RevokedSessions {

    private final Database database;

    RevokedSessions(Database database) {
        this.database = database;
    }

    boolean revoked(String sessionId) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select 1 from revoked_sessions where session_id = ?")) {
                ps.setString(1, sessionId);
                return ps.executeQuery().next();
            }
        });
    }

    /** Ends the session; signing out twice is the same as once. Sessions past their expiry are forgotten here. */
    void revoke(String sessionId, Instant expires, Instant now) {
        database.read(c -> {
            try (PreparedStatement prune = c.prepareStatement("delete from revoked_sessions where expires_at < ?")) {
                prune.setTimestamp(1, Timestamp.from(now));
                prune.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("insert into revoked_sessions (session_id, expires_at) values (?,?)")) {
                ps.setString(1, sessionId);
                ps.setTimestamp(2, Timestamp.from(expires));
                ps.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
            }
            return null;
        });
    }
}
