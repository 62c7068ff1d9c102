package io.acceltriage.store;

import java.sql.SQLException;

/** The store could not be read or written; callers answer 503 so a sender retries. */
public class StoreException extends RuntimeException {
    public StoreException(SQLException cause) {
        super("the store is unavailable: " + cause.getMessage(), cause);
    }
}
