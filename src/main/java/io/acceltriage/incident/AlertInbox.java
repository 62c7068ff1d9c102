package io.acceltriage.incident;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import io.acceltriage.store.StoreException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable inbox of alerts. {@link #accept} commits every new alert and its audit record in one
 * transaction before the webhook answers, so an acknowledged alert survives a crash; re-deliveries
 * (Alertmanager's repeat_interval, retries) are recognised and stored once.
 */
@ApplicationScoped
public class AlertInbox {

    private static final int LOOKUP_CHUNK = 500;
    /** The most alerts one group commit writes (a single larger delivery is written alone). */
    private static final int GROUP_ALERTS = 2_000;
    /** Attempts of one group's transaction after collisions and deadlocks before the delivery is answered 503. */
    private static final int ATTEMPTS = 3;

    private final Database database;
    private final AuditLog audit;
    private final Event<AlertsArrived> arrived;
    /** Guards {@link #waiting}, {@link #writing} and the deliveries' outcomes; deliveries wait on it for their turn. */
    private final Object turn = new Object();
    private final java.util.ArrayDeque<Delivery> waiting = new java.util.ArrayDeque<>();
    private boolean writing;

    AlertInbox(Database database, AuditLog audit, Event<AlertsArrived> arrived) {
        this.database = database;
        this.audit = audit;
        this.arrived = arrived;
    }

    public record Receipt(int accepted, int duplicates) {}

    /**
     * Stores a delivery's new alerts, each with its {@code alert.received} audit record, and answers once
     * they are committed. Concurrent deliveries are committed together (group commit): the caller that
     * finds no one writing writes every delivery waiting at that moment in one transaction, one audit batch
     * and one hold of the audit head, then wakes the others, each with its own receipt. A delivery is
     * answered only after the transaction holding it committed: durable before acknowledged, as alone.
     */
    public Receipt accept(List<Alert> alerts) {
        Delivery mine = new Delivery(alerts);
        boolean interrupted = false;
        synchronized (turn) {
            waiting.add(mine);
        }
        while (true) {
            List<Delivery> group;
            synchronized (turn) {
                while (!mine.done && writing) {
                    try {
                        turn.wait();
                    } catch (InterruptedException e) {
                        interrupted = true; // the delivery is queued; it is written (or failed) by a writer either way
                    }
                }
                if (mine.done) break;
                writing = true;
                group = new ArrayList<>();
                int size = 0;
                while (!waiting.isEmpty() && (group.isEmpty() || size + waiting.peek().alerts.size() <= GROUP_ALERTS)) {
                    Delivery d = waiting.poll();
                    group.add(d);
                    size += d.alerts.size();
                }
            }
            RuntimeException outage = null;
            try {
                outage = write(group);
            } finally {
                synchronized (turn) {
                    for (Delivery d : group) {
                        if (!d.done) d.fail(new StoreException(new SQLException("the delivery was not written", "58000")));
                    }
                    if (outage != null) {
                        // Those that queued while this attempt waited on a store that failed it are answered with the
                        // same failure now (nothing of theirs stored, retry later) rather than after a second wait.
                        for (Delivery d : waiting) d.fail(outage);
                        waiting.clear();
                    }
                    writing = false;
                    turn.notifyAll();
                }
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (mine.failure != null) throw mine.failure;
        return mine.receipt;
    }

    /** One webhook delivery waiting to be written; its fields are guarded by {@link #turn}. */
    private static final class Delivery {
        final List<Alert> alerts;
        Receipt receipt;
        RuntimeException failure;
        boolean done;

        Delivery(List<Alert> alerts) {
            this.alerts = alerts;
        }

        void succeed(Receipt r) {
            receipt = r;
            done = true;
        }

        void fail(RuntimeException e) {
            failure = e;
            done = true;
        }
    }

    /**
     * Writes a group in one transaction. When the store refuses it for what is in it (a value that does not
     * fit), writes each delivery alone, so one bad delivery fails only itself. Returns the failure when the
     * store itself failed (an outage), else null; every delivery of the group is done.
     */
    private RuntimeException write(List<Delivery> group) {
        Instant now = Instant.now();
        List<Receipt> receipts;
        try {
            receipts = acceptTogether(group, now);
        } catch (StoreException e) {
            // Refused for what it holds (a value that does not fit, a collision, a conflict), not because the store is down.
            boolean forContent = e.sqlClass().filter(c -> c.equals("22") || c.equals("23") || c.equals("40")).isPresent();
            if (group.size() == 1 || !forContent) {
                synchronized (turn) {
                    group.forEach(d -> d.fail(e));
                }
                return forContent ? null : e;
            }
            receipts = new ArrayList<>(group.size());
            for (Delivery d : group) {
                try {
                    receipts.add(acceptTogether(List.of(d), now).get(0));
                } catch (StoreException alone) {
                    receipts.add(null);
                    synchronized (turn) {
                        d.fail(alone);
                    }
                }
            }
        } catch (RuntimeException e) {
            synchronized (turn) {
                group.forEach(d -> d.fail(e));
            }
            return null;
        }
        int accepted = 0;
        synchronized (turn) {
            for (int i = 0; i < group.size(); i++) {
                Receipt r = receipts.get(i);
                if (r == null) continue;
                group.get(i).succeed(r);
                accepted += r.accepted();
            }
        }
        if (accepted > 0) arrived.fire(new AlertsArrived(accepted));
        return null;
    }

    /**
     * The deliveries' receipts, in one committed transaction. Retried (at most {@value #ATTEMPTS} attempts) after a
     * collision with another writer, and after PostgreSQL chose this transaction as a deadlock's victim (40P01) or
     * refused it as not serialisable (40001): it was rolled back whole, and waiting for the audit head it can be
     * caught in a cycle of two other transactions without holding anything they want (seen in IngestBenchmark on main:
     * a webhook answered 503 "deadlock detected" while locking audit_head).
     */
    private List<Receipt> acceptTogether(List<Delivery> group, Instant now) {
        StoreException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                // Null: a concurrent delivery (another replica's) stored one of these alerts between our check and our
                // insert; its transaction has committed, so the next pass sees it as the duplicate it is.
                List<Receipt> receipts = acceptOnce(group, now);
                if (receipts != null) return receipts;
            } catch (StoreException e) {
                if (!e.rolledBackForConcurrency()) throw e;
                last = e;
            }
        }
        throw last != null ? last : new StoreException(new SQLException("alerts kept colliding with concurrent deliveries", "40001"));
    }

    /** Null when the group collided with a concurrent delivery of the same alert (rolled back). */
    private List<Receipt> acceptOnce(List<Delivery> group, Instant now) {
        try {
            return database.inTransaction(c -> {
                // Each alert is new for the first delivery of the group that carries it; a repeat, in the same
                // delivery or a later one, is that delivery's duplicate, as if the deliveries had come one by one.
                Map<String, Alert> fresh = new LinkedHashMap<>();
                List<Map<String, Alert>> perDelivery = new ArrayList<>(group.size());
                for (Delivery d : group) {
                    Map<String, Alert> its = new LinkedHashMap<>();
                    for (Alert a : d.alerts) {
                        String key = dedupKey(a);
                        if (!fresh.containsKey(key)) {
                            fresh.put(key, a);
                            its.put(key, a);
                        }
                    }
                    perDelivery.add(its);
                }
                Set<String> already = stored(Tx.over(c), fresh.keySet());
                fresh.keySet().removeAll(already);
                insert(Tx.over(c), fresh, now);
                List<AuditLog.Entry> records = new ArrayList<>(fresh.size());
                for (Alert a : fresh.values()) {
                    records.add(new AuditLog.Entry(null, AuditKind.ALERT_RECEIVED, Actors.ALERTMANAGER, auditPayload(a)));
                }
                audit.appendAll(Tx.over(c), records);
                List<Receipt> receipts = new ArrayList<>(group.size());
                for (int i = 0; i < group.size(); i++) {
                    Map<String, Alert> its = perDelivery.get(i);
                    its.keySet().removeAll(already);
                    receipts.add(new Receipt(its.size(), group.get(i).alerts.size() - its.size()));
                }
                return receipts;
            });
        } catch (StoreException e) {
            if (e.sqlClass().filter("23"::equals).isPresent()) {
                return null;
            }
            throw e;
        }
    }

    /** Same group, same alert, same status and start: a re-delivery, not news. */
    static String dedupKey(Alert a) {
        return Fingerprints.sha256(a.groupKey() + "\n" + a.fingerprint() + "\n" + a.status().wireName() + "\n" + a.startsAt());
    }

    /** The keys among these that are already stored; one query per few hundred keys. */
    private static Set<String> stored(Tx tx, Collection<String> keys) {
        return tx.sql(c -> {
            Set<String> found = new HashSet<>();
            List<String> all = List.copyOf(keys);
            for (int from = 0; from < all.size(); from += LOOKUP_CHUNK) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + LOOKUP_CHUNK));
                String marks = String.join(",", java.util.Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement ps = c.prepareStatement("select dedup_key from alerts where dedup_key in (" + marks + ")")) {
                    for (int i = 0; i < chunk.size(); i++) ps.setString(i + 1, chunk.get(i));
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) found.add(rs.getString(1));
                    }
                }
            }
            return found;
        });
    }

    private static void insert(Tx tx, Map<String, Alert> alerts, Instant now) {
        tx.run(c -> {
            if (alerts.isEmpty()) return;
            try (PreparedStatement ps = c.prepareStatement("insert into alerts (dedup_key, group_key, fingerprint, status, alertname,"
                    + " labels, annotations, starts_at, ends_at, generator_url, received_at, subject_hash) values (?,?,?,?,?,?,?,?,?,?,?,?)")) {
                for (Map.Entry<String, Alert> e : alerts.entrySet()) {
                    Alert a = e.getValue();
                    ps.setString(1, e.getKey());
                    ps.setString(2, a.groupKey());
                    ps.setString(3, a.fingerprint());
                    ps.setString(4, a.status().wireName());
                    ps.setString(5, a.name());
                    ps.setString(6, Json.write(a.labels()));
                    ps.setString(7, Json.write(a.annotations()));
                    ps.setTimestamp(8, a.startsAt() == null ? null : Timestamp.from(a.startsAt()));
                    ps.setTimestamp(9, a.endsAt() == null ? null : Timestamp.from(a.endsAt()));
                    ps.setString(10, a.generatorUrl());
                    ps.setTimestamp(11, Timestamp.from(now));
                    // What the storm window counts (StoredStorms): the subject by labels alone, hashed to fit.
                    ps.setString(12, Fingerprints.sha256(Correlator.subjectOf(a).key()));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        });
    }

    private static Map<String, Object> auditPayload(Alert a) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("alertname", a.name());
        p.put("status", a.status().wireName());
        p.put("fingerprint", a.fingerprint());
        p.put("groupKey", a.groupKey());
        p.put("labels", a.labels());
        p.put("startsAt", a.startsAt());
        return p;
    }

    /** How many alerts wait to be filed under an incident. */
    public long pending() {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select count(*) from alerts where processed_at is null");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /** Alerts not yet filed under an incident, oldest first. */
    public List<StoredAlert> unprocessed(int limit) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select id, group_key, fingerprint, status, labels, annotations, starts_at, ends_at, generator_url,"
                            + " received_at, incident_id from alerts where processed_at is null order by id limit " + limit)) {
                return map(ps);
            }
        });
    }

    public List<StoredAlert> ofIncident(String incidentId) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "select id, group_key, fingerprint, status, labels, annotations, starts_at, ends_at, generator_url,"
                            + " received_at, incident_id from alerts where incident_id = ? order by id")) {
                ps.setString(1, incidentId);
                return map(ps);
            }
        });
    }

    /**
     * Whether the incident has alerts and the last one filed of each fingerprint is resolved: asked by the
     * store, which keeps the answer's cost off a fleet incident's thousands of alerts.
     */
    public boolean allResolved(String incidentId) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select count(*), sum(case when a.status = 'firing' and not exists"
                    + " (select 1 from alerts b where b.incident_id = a.incident_id and b.fingerprint = a.fingerprint and b.id > a.id)"
                    + " then 1 else 0 end) from alerts a where a.incident_id = ?")) {
                ps.setString(1, incidentId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > 0 && rs.getLong(2) == 0;
                }
            }
        });
    }

    /**
     * The ids among these that no filer has filed yet, read inside the caller's transaction after it
     * took {@link io.acceltriage.store.WorkLock#FILING}: another replica may have filed the same rows
     * since this one read them from the inbox.
     */
    public Set<Long> stillWaiting(Tx tx, Collection<Long> ids) {
        return tx.sql(c -> {
            Set<Long> out = new HashSet<>();
            List<Long> all = List.copyOf(ids);
            for (int from = 0; from < all.size(); from += LOOKUP_CHUNK) {
                List<Long> chunk = all.subList(from, Math.min(all.size(), from + LOOKUP_CHUNK));
                String marks = String.join(",", java.util.Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement ps = c.prepareStatement("select id from alerts where processed_at is null and id in (" + marks + ")")) {
                    for (int i = 0; i < chunk.size(); i++) ps.setLong(i + 1, chunk.get(i));
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) out.add(rs.getLong(1));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Takes an alert that cannot be filed under any incident out of the queue, inside the caller's
     * transaction: processed, under no incident. The caller audits why.
     */
    public void setAside(Tx tx, long alertId) {
        tx.run(c -> {
            file(Tx.over(c), alertId, null);
        });
    }

    /** Files an alert under an incident and marks it processed, inside the caller's transaction. */
    public void file(Tx tx, long alertId, String incidentId) {
        tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement("update alerts set incident_id = ?, processed_at = ? where id = ?")) {
                ps.setString(1, incidentId);
                ps.setTimestamp(2, Timestamp.from(Instant.now()));
                ps.setLong(3, alertId);
                ps.executeUpdate();
            }
        });
    }

    private static List<StoredAlert> map(PreparedStatement ps) throws SQLException {
        List<StoredAlert> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Timestamp starts = rs.getTimestamp(7);
                Timestamp ends = rs.getTimestamp(8);
                Alert alert = new Alert(rs.getString(3), rs.getString(2), AlertStatus.parse(rs.getString(4)),
                        Json.readStringMap(rs.getString(5)), Json.readStringMap(rs.getString(6)),
                        starts == null ? null : starts.toInstant(), ends == null ? null : ends.toInstant(), rs.getString(9));
                out.add(new StoredAlert(rs.getLong(1), alert, rs.getTimestamp(10).toInstant(), rs.getString(11)));
            }
        }
        return out;
    }
}
