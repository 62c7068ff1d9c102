package io.acceltriage.store;

import java.sql.SQLException;

/** The store could not be read or written; callers answer 503 so a sender retries. */
public class StoreException extends RuntimeException {
    public StoreException(SQLException cause) {
        super("the store is unavailable: " + cause.getMessage(), cause);
    }

    /**
     * The SQL state's class (its first two characters: "23" integrity, "22" data), when the database
     * gave one: the rows were refused for their content, not because the store is down.
     */
    public java.util.Optional<String> sqlClass() {
        String state = getCause() instanceof SQLException s ? s.getSQLState() : null;
        return state == null || state.length() < 2 ? java.util.Optional.empty() : java.util.Optional.of(state.substring(0, 2));
    }

    /**
     * PostgreSQL rolled the transaction back whole as a deadlock's victim (40P01) or as not serialisable (40001):
     * nothing of it stayed, and running it again may succeed.
     */
    public boolean rolledBackForConcurrency() {
        String state = getCause() instanceof SQLException s ? s.getSQLState() : null;
        return "40P01".equals(state) || "40001".equals(state);
    }
}
