package io.acceltriage.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;

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

    /** Longest lock name the table holds; longer names are shortened to a hash of themselves. */
    private static final int MAX_NAME = 64;

    private WorkLock() {}

    /**
     * Like {@link #hold} for a lock named at run time (a pool's, a workload's): its row is made the first time
     * it is asked for. Two replicas may make it at once; the insert that loses is undone to a savepoint, so the
     * caller's transaction goes on (PostgreSQL aborts a transaction on an error). Hold several in one
     * transaction in a fixed order (sorted), or two holders can wait for each other.
     */
    public static void holdMade(Tx tx, String name) {
        String key = name.length() <= MAX_NAME ? name : "h:" + sha256(name).substring(0, MAX_NAME - 2);
        tx.run(c -> {
            boolean exists;
            try (PreparedStatement ps = c.prepareStatement("select name from work_locks where name = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    exists = rs.next();
                }
            }
            if (!exists) {
                Savepoint before = c.setSavepoint();
                try (PreparedStatement ps = c.prepareStatement("insert into work_locks (name) values (?)")) {
                    ps.setString(1, key);
                    ps.executeUpdate();
                    c.releaseSavepoint(before);
                } catch (SQLException e) {
                    if (!"23505".equals(e.getSQLState())) throw e;
                    c.rollback(before); // another holder made it first
                }
            }
        });
        hold(tx, key);
    }

    private static String sha256(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

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
