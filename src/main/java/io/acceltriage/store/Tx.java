package io.acceltriage.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One transaction, as the stages compose it: the filing of an alert, its incident and its audit
 * record commit together. Only the classes that own a table open it ({@link #sql}); everyone else
 * passes it on, so no stage above the store speaks JDBC, and a failure reaches them as
 * {@link StoreException}.
 */
public final class Tx {

    private final Connection connection;

    private Tx(Connection connection) {
        this.connection = connection;
    }

    /** For a table owner already holding a connection (its own statements) that calls another owner. */
    public static Tx over(Connection connection) {
        return new Tx(connection);
    }

    /** A table owner's statements on this transaction's connection. */
    public <T> T sql(Database.SqlWork<T> work) {
        try {
            return work.run(connection);
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    /** The same, for statements that return nothing. */
    public void run(SqlAction work) {
        sql(c -> {
            work.run(c);
            return null;
        });
    }

    @FunctionalInterface
    public interface SqlAction {
        void run(Connection connection) throws SQLException;
    }
}
