package io.acceltriage.policy;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The breaker in the database (one row, V2 migration), so a restart or another replica sees it
 * tripped. Tripping and resetting are audited in the same transaction as the state change.
 */
public final class StoredBreaker implements Breaker {

    private final Database database;
    private final AuditLog audit;
    private final Consumer<Trip> onTrip;

    /** {@code onTrip} hears of a trip once, after it is stored: the place to tell people. */
    public StoredBreaker(Database database, AuditLog audit, Consumer<Trip> onTrip) {
        this.database = database;
        this.audit = audit;
        this.onTrip = onTrip;
    }

    @Override
    public Optional<Trip> tripped() {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select tripped, tripped_at, reason from circuit_breaker where id = 1");
                    ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    return Optional.of(new Trip(rs.getTimestamp(2).toInstant(), rs.getString(3)));
                }
                return Optional.empty();
            }
        });
    }

    @Override
    public boolean trip(String reason) {
        Instant now = Instant.now();
        boolean tripped = database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "update circuit_breaker set tripped = true, tripped_at = ?, reason = ? where id = 1 and tripped = false")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, reason);
                if (ps.executeUpdate() == 0) return false;
            }
            audit.append(Tx.over(c), null, AuditKind.BREAKER_TRIPPED, Actors.AGENT, Map.of("reason", reason));
            return true;
        });
        if (tripped) {
            onTrip.accept(new Trip(now, reason));
        }
        return tripped;
    }

    @Override
    public boolean reset(String by) {
        return database.inTransaction(c -> {
            String reason;
            try (PreparedStatement ps = c.prepareStatement("select reason from circuit_breaker where id = 1 and tripped = true for update");
                    ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return false;
                reason = rs.getString(1);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "update circuit_breaker set tripped = false, reset_by = ?, reset_at = ? where id = 1")) {
                ps.setString(1, by);
                ps.setTimestamp(2, Timestamp.from(Instant.now()));
                ps.executeUpdate();
            }
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("resetBy", by);
            p.put("trippedFor", reason);
            audit.append(Tx.over(c), null, AuditKind.BREAKER_RESET, by, p);
            return true;
        });
    }
}
