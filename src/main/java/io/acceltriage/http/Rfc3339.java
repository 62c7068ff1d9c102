package io.acceltriage.http;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Times the API reads. Years past 9999 (or before 1) parse, but neither java.sql.Timestamp nor every
 * database holds them, so a time outside that range is a client's mistake, not a 500 later.
 */
public final class Rfc3339 {

    static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    private Rfc3339() {
    }

    public static boolean storable(Instant t) {
        return !t.isBefore(EARLIEST) && !t.isAfter(LATEST);
    }

    /** A query parameter's time; null when absent, a 400's reason naming the parameter when malformed. */
    public static Instant param(String name, String value) {
        if (value == null || value.isBlank()) return null;
        Instant t;
        try {
            t = Instant.parse(value.strip());
        } catch (DateTimeParseException e) {
            t = null;
        }
        if (t == null || !storable(t)) {
            throw new InvalidPayload(name + " must be an RFC 3339 time such as 2026-11-30T10:00:00Z; got '"
                    + (value.length() > 80 ? value.substring(0, 80) + "…" : value) + "'");
        }
        return t;
    }
}
