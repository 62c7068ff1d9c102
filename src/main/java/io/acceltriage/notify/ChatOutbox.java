package io.acceltriage.notify;

import io.acceltriage.store.Database;
import io.acceltriage.store.Tx;
import io.acceltriage.store.WorkLock;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;

/**
 * The durable chat outbox (table {@code chat_outbox}): messages for chat channels, queued in the
 * transaction of what they report, claimed by one sender of one replica at a time, kept until they
 * are delivered or given up. An incident's messages of one channel form a thread that goes out in
 * order, one in flight at a time, so a later notice finds the message the earlier one posted and
 * updates it. A message equal to the one before it in its thread, queued while that one still waits
 * (two replicas triaging one incident moments apart tell the same thing), is queued once: either it is
 * skipped, or, when both are queued at the same moment, its key (content and previous message) is taken.
 */
@ApplicationScoped
public class ChatOutbox {

    static final String PENDING = "PENDING";
    static final String SENT = "SENT";
    static final String GIVEN_UP = "GIVEN_UP";
    private static final String DUPLICATE_KEY = "23505";
    private static final String COLUMNS = "id, channel, kind, incident_id, what, payload, attempts, queued_at, claimed_by, retaken_from";

    private final Database database;

    ChatOutbox(Database database) {
        this.database = database;
    }

    Database database() {
        return database;
    }

    /** Queues a message in {@code tx}; false when the same message already waits, last of its thread. */
    public boolean enqueue(Tx tx, Outgoing.Draft d) {
        return tx.sql(c -> enqueue(c, d, Instant.now()));
    }

    private static boolean enqueue(Connection c, Outgoing.Draft d, Instant now) throws SQLException {
        String thread = d.incidentId() != null ? d.incidentId()
                : Outgoing.NOTICE.equals(d.kind()) ? "fleet" : "once:" + UUID.randomUUID();
        String content = sha256(d.channel() + "\n" + thread + "\n" + d.kind() + "\n" + d.payload());
        long previous = 0;
        try (PreparedStatement ps = c.prepareStatement("select id, content_hash, status, claimed_until from chat_outbox"
                + " where channel = ? and thread_key = ? order by id desc")) {
            ps.setString(1, d.channel());
            ps.setString(2, thread);
            ps.setMaxRows(1);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    Timestamp claimed = rs.getTimestamp(4);
                    boolean waiting = PENDING.equals(rs.getString(3)) && (claimed == null || claimed.toInstant().isBefore(now));
                    // The same message still waiting to be sent: it will read the store when it goes, so it says this
                    // one too. Once it is sent (or on its way) an equal one is an update of what the channel shows.
                    if (waiting && content.equals(rs.getString(2))) return false;
                    previous = rs.getLong(1);
                }
            }
        }
        String key = sha256(content + "\n" + previous);
        // Another replica may be inserting the same key right now: its insert wins, and this one must not
        // undo the rest of the caller's transaction (PostgreSQL aborts a transaction on an error), hence the savepoint.
        Savepoint before = c.setSavepoint();
        try (PreparedStatement ps = c.prepareStatement("insert into chat_outbox (channel, kind, thread_key, incident_id, what,"
                + " payload, content_hash, dedup_key, status, attempts, queued_at, due_at) values (?,?,?,?,?,?,?,?,?,0,?,?)")) {
            ps.setString(1, d.channel());
            ps.setString(2, d.kind());
            ps.setString(3, thread);
            ps.setString(4, d.incidentId());
            ps.setString(5, cut(d.what(), 200));
            ps.setString(6, d.payload());
            ps.setString(7, content);
            ps.setString(8, key);
            ps.setString(9, PENDING);
            ps.setTimestamp(10, Timestamp.from(now));
            ps.setTimestamp(11, Timestamp.from(now));
            ps.executeUpdate();
        } catch (SQLException e) {
            if (DUPLICATE_KEY.equals(e.getSQLState())) {
                c.rollback(before);
                return false;
            }
            throw e;
        }
        c.releaseSavepoint(before);
        return true;
    }

    /**
     * When the next message of {@code channel} may be claimed (now or earlier: due; a message in flight
     * elsewhere: when its claim runs out), or empty when none waits: a read without the lock, to keep idle senders cheap and let them sleep until then.
     */
    Optional<Instant> nextDue(String channel) {
        return database.read(c -> {
            // Only the first pending message of each thread: the ones behind it wait for it, not for their own due time.
            try (PreparedStatement ps = c.prepareStatement("select min(case when o.claimed_until is not null and o.claimed_until"
                    + " > o.due_at then o.claimed_until else o.due_at end) from chat_outbox o where o.channel = ? and o.status = ?"
                    + " and not exists (select 1 from chat_outbox p where p.channel = o.channel and p.thread_key = o.thread_key"
                    + " and p.status = ? and p.id < o.id)")) {
                ps.setString(1, channel);
                ps.setString(2, PENDING);
                ps.setString(3, PENDING);
                try (ResultSet rs = ps.executeQuery()) {
                    Timestamp t = rs.next() ? rs.getTimestamp(1) : null;
                    return Optional.ofNullable(t).map(Timestamp::toInstant);
                }
            }
        });
    }

    /**
     * Retention: deletes the messages delivered or given up before {@code before} (their outcome stays in
     * the audit log's notification records); pending ones are never deleted. Returns how many.
     */
    long sweep(Tx tx, Instant before) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("delete from chat_outbox where status in (?, ?) and done_at < ?")) {
                ps.setString(1, SENT);
                ps.setString(2, GIVEN_UP);
                ps.setTimestamp(3, Timestamp.from(before));
                return (long) ps.executeUpdate();
            }
        });
    }

    /**
     * Claims the oldest due message of {@code channel} that is the first pending one of its thread and
     * whose thread has nothing in flight, for {@code lease}; the claim counts as an attempt. Claims take
     * turns (a work lock), so two senders never both decide that a thread is free.
     */
    Optional<Outgoing> claim(String channel, String claimer, Instant now, Duration lease) {
        return database.transaction(tx -> {
            WorkLock.hold(tx, WorkLock.CHAT_OUTBOX);
            return tx.sql(c -> {
                Outgoing found = null;
                try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from chat_outbox o where o.channel = ?"
                        + " and o.status = ? and o.due_at <= ? and (o.claimed_until is null or o.claimed_until < ?)"
                        + " and not exists (select 1 from chat_outbox p where p.channel = o.channel and p.thread_key = o.thread_key"
                        + " and p.status = ? and (p.id < o.id or p.claimed_until >= ?)) order by o.id")) {
                    ps.setString(1, channel);
                    ps.setString(2, PENDING);
                    ps.setTimestamp(3, Timestamp.from(now));
                    ps.setTimestamp(4, Timestamp.from(now));
                    ps.setString(5, PENDING);
                    ps.setTimestamp(6, Timestamp.from(now));
                    ps.setMaxRows(1);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            found = new Outgoing(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                                    rs.getString(6), rs.getInt(7) + 1, rs.getTimestamp(8).toInstant(),
                                    rs.getString(9) != null ? rs.getString(9) : rs.getString(10));
                        }
                    }
                }
                if (found == null) return Optional.empty();
                // claimed_by still set: the last claimer neither finished nor released it (it died mid-send).
                try (PreparedStatement ps = c.prepareStatement("update chat_outbox set retaken_from = coalesce(claimed_by,"
                        + " retaken_from), claimed_by = ?, claimed_until = ?, attempts = attempts + 1 where id = ?")) {
                    ps.setString(1, cut(claimer, 128));
                    ps.setTimestamp(2, Timestamp.from(now.plus(lease)));
                    ps.setLong(3, found.id());
                    ps.executeUpdate();
                }
                return Optional.of(found);
            });
        });
    }

    /** Extends this claimer's claims on messages it is still sending. */
    void renew(java.util.Collection<Long> ids, String claimer, Instant until) {
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update chat_outbox set claimed_until = ? where id = ? and claimed_by = ?"
                    + " and status = ?")) {
                for (long id : ids) {
                    ps.setTimestamp(1, Timestamp.from(until));
                    ps.setLong(2, id);
                    ps.setString(3, claimer);
                    ps.setString(4, PENDING);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /** The message went out (or was given up: {@code delivered} false); the thread's next may follow. */
    void finish(Tx tx, Outgoing m, boolean delivered, String detail) {
        tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement("update chat_outbox set status = ?, done_at = ?, claimed_by = null,"
                    + " claimed_until = null, detail = ? where id = ?")) {
                ps.setString(1, delivered ? SENT : GIVEN_UP);
                ps.setTimestamp(2, Timestamp.from(Instant.now()));
                ps.setString(3, cut(detail, 2000));
                ps.setLong(4, m.id());
                ps.executeUpdate();
            }
        });
    }

    /** Tried and refused for now: released, due again at {@code due}; the thread waits behind it. */
    void retryAt(Outgoing m, Instant due, String detail) {
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update chat_outbox set due_at = ?, claimed_by = null,"
                    + " claimed_until = null, detail = ? where id = ?")) {
                ps.setTimestamp(1, Timestamp.from(due));
                ps.setString(2, cut(detail, 2000));
                ps.setLong(3, m.id());
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Messages not yet delivered nor given up, of every channel: the backlog gauge. */
    public long pending() {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select count(*) from chat_outbox where status = ?")) {
                ps.setString(1, PENDING);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
