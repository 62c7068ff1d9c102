package io.acceltriage.action;

import io.acceltriage.store.Database;
import io.acceltriage.store.StoreException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Undos a person asked of a replica that does not hold the actions lease (behind a Service nobody
 * picks the replica): stored, then carried out by whichever replica leads ({@link Executor#runRequestedUndos}).
 */
final class UndoRequests {

    record Request(String actionId, String by) {}

    private final Database database;

    UndoRequests(Database database) {
        this.database = database;
    }

    /** Stores the request; false when one for this action is pending already (a second click). */
    boolean add(String actionId, String by) {
        try {
            return database.inTransaction(c -> {
                try (PreparedStatement ps = c.prepareStatement("select done_at from undo_requests where action_id = ?")) {
                    ps.setString(1, actionId);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next() && rs.getTimestamp(1) == null) return false;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("delete from undo_requests where action_id = ?")) {
                    ps.setString(1, actionId);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement("insert into undo_requests (action_id, requested_by, requested_at) values (?,?,?)")) {
                    ps.setString(1, actionId);
                    ps.setString(2, by);
                    ps.setTimestamp(3, Timestamp.from(Instant.now()));
                    ps.executeUpdate();
                }
                return true;
            });
        } catch (StoreException e) {
            if (e.sqlClass().filter("23"::equals).isPresent()) return false; // another replica stored the same request just now
            throw e;
        }
    }

    List<Request> pending() {
        return database.read(c -> {
            List<Request> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("select action_id, requested_by from undo_requests where done_at is null order by requested_at");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Request(rs.getString(1), rs.getString(2)));
            }
            return out;
        });
    }

    void done(String actionId) {
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update undo_requests set done_at = ? where action_id = ? and done_at is null")) {
                ps.setTimestamp(1, Timestamp.from(Instant.now()));
                ps.setString(2, actionId);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
