package io.acceltriage.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A named lock held until the caller's transaction ends: a row of {@code work_locks} selected for
 * update. Several replicas on one PostgreSQL database (and the worker threads of one process) take
 * turns at work that must see each other's results, such as correlating alerts into incidents.
 */
public final class WorkLock {

    /** Filing alerts under incidents: one filer at a time sees every incident the last one opened. */
    public static final String FILING = "filing";
    /** Claiming the next chat message: one claimer at a time sees which threads have a message in flight. */
    public static final String CHAT_OUTBOX = "chat-outbox";

    private WorkLock() {}

    /** Waits for the lock and holds it until {@code tx} commits or rolls back. */
    public static void hold(Tx tx, String name) {
        tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement("select name from work_locks where name = ? for update")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("no work lock named " + name + ": the store's migrations did not run", "55000");
                }
            }
        });
    }
}
