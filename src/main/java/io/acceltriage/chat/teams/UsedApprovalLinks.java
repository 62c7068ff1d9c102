package io.acceltriage.chat.teams;

import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Makes approval links single-use: a link's nonce is recorded when it is used, and a second use finds it. */
@ApplicationScoped
class UsedApprovalLinks {

    private final Database database;

    UsedApprovalLinks(Database database) {
        this.database = database;
    }

    boolean used(String nonce) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select 1 from approval_links_used where nonce = ?")) {
                ps.setString(1, nonce);
                return ps.executeQuery().next();
            }
        });
    }

    /** True for the first use only; concurrent uses race on the primary key and one wins. */
    boolean use(String nonce, String actionId, String by) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "insert into approval_links_used (nonce, action_id, used_by, used_at) values (?,?,?,?)")) {
                ps.setString(1, nonce);
                ps.setString(2, actionId);
                ps.setString(3, by);
                ps.setTimestamp(4, Timestamp.from(Instant.now()));
                ps.executeUpdate();
                return true;
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                    return false;
                }
                throw e;
            }
        });
    }
}
