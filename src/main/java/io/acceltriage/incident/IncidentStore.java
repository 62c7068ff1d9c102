package io.acceltriage.incident;

import io.acceltriage.store.StoreException;
import io.acceltriage.store.Tx;
import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Incidents: opened per subject, updated as triage goes on, listed and read back by the API and page. */
@ApplicationScoped
public class IncidentStore {

    private static final String COLUMNS = "id, subject_kind, subject_ns, subject_name, node, state, family, confidence,"
            + " alert_count, opened_at, updated_at, resolved_at, summary, assessment";

    private final Database database;

    IncidentStore(Database database) {
        this.database = database;
    }

    public static String newId() {
        return "inc-" + UUID.randomUUID().toString().substring(0, 13).replace("-", "");
    }

    /**
     * Opens an incident for the subject, or, when the subject has an open incident already (another
     * replica opened it a moment ago: the database allows one, {@code open_subject} is unique), returns
     * that one. The refused insert is undone to a savepoint, so the caller's transaction goes on.
     */
    public Correlator.Index.Opened openOrJoin(Tx tx, Subject subject, String node, Instant at) {
        return tx.sql(c -> {
            Savepoint before = c.setSavepoint();
            try {
                Incident opened = open(Tx.over(c), subject, node, at);
                c.releaseSavepoint(before);
                return new Correlator.Index.Opened(opened.id(), true);
            } catch (StoreException e) {
                if (!(e.getCause() instanceof SQLException sql) || !"23505".equals(sql.getSQLState())) throw e;
                c.rollback(before);
            }
            try (PreparedStatement ps = c.prepareStatement("select id from incidents where open_subject = ?")) {
                ps.setString(1, subject.key());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("the open incident of " + subject.key() + " refused a second one and then vanished");
                    return new Correlator.Index.Opened(rs.getString(1), false);
                }
            }
        });
    }

    /** Opens an incident; the store refuses it (a duplicate key) when the subject has an open one. See {@link #openOrJoin}. */
    public Incident open(Tx tx, Subject subject, String node, Instant at) {
        return tx.sql(c -> {
            Incident incident = new Incident(newId(), subject, node, IncidentState.TRIAGING, null, null, 0, at, at, null, null, null);
            try (PreparedStatement ps = c.prepareStatement("insert into incidents (id, subject_key, subject_kind, subject_ns,"
                    + " subject_name, node, state, alert_count, opened_at, updated_at, open_subject) values (?,?,?,?,?,?,?,?,?,?,?)")) {
                ps.setString(1, incident.id());
                ps.setString(2, subject.key());
                ps.setString(3, subject.kind().name());
                ps.setString(4, subject.namespace());
                ps.setString(5, subject.name());
                ps.setString(6, node);
                ps.setString(7, incident.state().name());
                ps.setInt(8, 0);
                ps.setTimestamp(9, Timestamp.from(at));
                ps.setTimestamp(10, Timestamp.from(at));
                ps.setString(11, subject.key());
                ps.executeUpdate();
            }
            addKeys(Tx.over(c), incident.id(), List.of(subject.key()));
            return incident;
        });
    }

    /** The open incident holding any of the correlation keys, the most recently opened first. */
    public Optional<String> openHolding(Tx tx, Collection<String> keys) {
        return tx.sql(c -> {
            if (keys.isEmpty()) return Optional.empty();
            String marks = String.join(",", Collections.nCopies(keys.size(), "?"));
            try (PreparedStatement ps = c.prepareStatement("select i.id from incident_keys k join incidents i on i.id = k.incident_id"
                    + " where k.correlation_key in (" + marks + ") and i.state <> 'RESOLVED' order by i.opened_at desc, i.id limit 1")) {
                int n = 1;
                for (String k : keys) ps.setString(n++, k);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    /** The open incident the latest alert with this fingerprint was filed under. */
    public Optional<String> openWithAlert(Tx tx, String fingerprint) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("select i.id from alerts a join incidents i on i.id = a.incident_id"
                    + " where a.fingerprint = ? and i.state <> 'RESOLVED' order by a.id desc limit 1")) {
                ps.setString(1, fingerprint);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    public Subject subjectOf(Tx tx, String id) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("select subject_kind, subject_ns, subject_name from incidents where id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("incident " + id + " vanished while an alert was filed under it");
                    return new Subject(Subject.Kind.valueOf(rs.getString(1)), rs.getString(2), rs.getString(3));
                }
            }
        });
    }

    /**
     * Makes a node the incident's subject (correlation found the node at fault) and its node, unless
     * the node has an open incident of its own: then that one stays the node's, and this one keeps its
     * subject (one open incident per subject, see {@link #openOrJoin}).
     */
    public void resubject(Tx tx, String id, Subject node) {
        tx.run(c -> {
            Savepoint before = c.setSavepoint();
            try (PreparedStatement ps = c.prepareStatement("update incidents set subject_key = ?, subject_kind = ?, subject_ns = ?,"
                    + " subject_name = ?, node = ?, updated_at = ?, open_subject = case when state = 'RESOLVED' then null else ? end"
                    + " where id = ?")) {
                ps.setString(1, node.key());
                ps.setString(2, node.kind().name());
                ps.setString(3, node.namespace());
                ps.setString(4, node.name());
                ps.setString(5, node.name());
                ps.setTimestamp(6, Timestamp.from(Instant.now()));
                ps.setString(7, node.key());
                ps.setString(8, id);
                ps.executeUpdate();
            } catch (SQLException e) {
                if (!"23505".equals(e.getSQLState())) throw e;
                c.rollback(before);
                return;
            }
            c.releaseSavepoint(before);
            addKeys(Tx.over(c), id, List.of(node.key()));
        });
    }

    /** Adds correlation keys the incident does not hold yet. */
    public void addKeys(Tx tx, String id, Collection<String> keys) {
        tx.run(c -> {
            Set<String> held = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement("select correlation_key from incident_keys where incident_id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) held.add(rs.getString(1));
                }
            }
            try (PreparedStatement ps = c.prepareStatement("insert into incident_keys (incident_id, correlation_key) values (?, ?)")) {
                for (String k : new LinkedHashSet<>(keys)) {
                    if (held.contains(k)) continue;
                    ps.setString(1, id);
                    ps.setString(2, k);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        });
    }

    /**
     * Alerts were filed under the incident: {@code alerts} more counted, and one more triage wanted for each
     * {@code firing} one (see {@link #claimTriage}). One statement per incident for a whole chunk of filing.
     */
    public void alertsFiled(Tx tx, String id, int alerts, int firing) {
        tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set alert_count = alert_count + ?,"
                    + " triage_wanted = triage_wanted + ?, updated_at = ? where id = ?")) {
                ps.setInt(1, alerts);
                ps.setInt(2, firing);
                ps.setTimestamp(3, Timestamp.from(Instant.now()));
                ps.setString(4, id);
                ps.executeUpdate();
            }
        });
    }

    /** Open incidents with a triage wanted that no replica holds (or whose holder's lease ran out), oldest first. */
    public List<String> dueForTriage(Instant now, int limit) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select id from incidents where triage_wanted > triage_done"
                    + " and state <> 'RESOLVED' and (triage_until is null or triage_until < ?) order by opened_at, id limit " + limit)) {
                ps.setTimestamp(1, Timestamp.from(now));
                List<String> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(rs.getString(1));
                }
                return out;
            }
        });
    }

    /** A triage this replica holds: the incident, and how many alerts it answers for (see {@link #finishTriage}). */
    public record TriageClaim(String incidentId, long wanted) {}

    /**
     * Takes the triage of an incident until {@code until}, unless another replica holds it: one
     * conditional update, so of two replicas claiming at once exactly one gets it. Empty when
     * another holds it or nothing is wanted any more.
     */
    public Optional<TriageClaim> claimTriage(String id, String owner, Instant now, Instant until) {
        return database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set triage_owner = ?, triage_until = ? where id = ?"
                    + " and triage_wanted > triage_done and (triage_until is null or triage_until < ?)")) {
                ps.setString(1, owner);
                ps.setTimestamp(2, Timestamp.from(until));
                ps.setString(3, id);
                ps.setTimestamp(4, Timestamp.from(now));
                if (ps.executeUpdate() != 1) return Optional.empty();
            }
            try (PreparedStatement ps = c.prepareStatement("select triage_wanted from incidents where id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return Optional.of(new TriageClaim(id, rs.getLong(1)));
                }
            }
        });
    }

    /** Frees the leases held under this replica's name: a restart of it holds none (see IncidentProcessor.recover). */
    public void releaseTriages(String owner) {
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set triage_owner = null, triage_until = null where triage_owner = ?")) {
                ps.setString(1, owner);
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Extends the leases this replica still holds (a drain or a model call can outlast one lease). */
    public void renewTriage(Collection<String> ids, String owner, Instant until) {
        if (ids.isEmpty()) return;
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set triage_until = ? where id = ? and triage_owner = ?")) {
                for (String id : ids) {
                    ps.setTimestamp(1, Timestamp.from(until));
                    ps.setString(2, id);
                    ps.setString(3, owner);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    /**
     * The triage of a claim is done: the alerts it answered for need no other, and the lease is free.
     * Alerts filed during the triage still want one, so the incident is due again.
     */
    public void finishTriage(TriageClaim claim, String owner) {
        release(claim, owner, claim.wanted(), null);
    }

    /** The triage failed: still wanted, by nobody before {@code notBefore}. */
    public void deferTriage(TriageClaim claim, String owner, Instant notBefore) {
        release(claim, owner, -1, notBefore);
    }

    private void release(TriageClaim claim, String owner, long done, Instant notBefore) {
        database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set triage_done = case when ? > triage_done then ? else triage_done end,"
                    + " triage_owner = null, triage_until = ? where id = ? and triage_owner = ?")) {
                ps.setLong(1, done);
                ps.setLong(2, done);
                ps.setTimestamp(3, notBefore == null ? null : Timestamp.from(notBefore));
                ps.setString(4, claim.incidentId());
                ps.setString(5, owner);
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Records the outcome of a triage: the headline columns and the assessment document. */
    public void recordAssessment(Tx tx, String id, IncidentState state, String family, double confidence,
            String summary, String assessmentJson, String node) {
        tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set state = ?, family = ?, confidence = ?,"
                    + " summary = ?, assessment = ?, updated_at = ?, node = coalesce(node, ?) where id = ?")) {
                ps.setString(1, state.name());
                ps.setString(2, family);
                ps.setDouble(3, confidence);
                ps.setString(4, summary);
                ps.setString(5, assessmentJson);
                ps.setTimestamp(6, Timestamp.from(Instant.now()));
                ps.setString(7, node);
                ps.setString(8, id);
                ps.executeUpdate();
            }
        });
    }

    /**
     * Replaces the summary and assessment document a triage stored, written again once the model's
     * summary came in, unless a later triage replaced them meanwhile ({@code stored} no longer the
     * summary): false then, and nothing changes.
     */
    public boolean reviseSummary(Tx tx, String id, String stored, String summary, String assessmentJson) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("update incidents set summary = ?, assessment = ?, updated_at = ?"
                    + " where id = ? and summary = ?")) {
                ps.setString(1, summary);
                ps.setString(2, assessmentJson);
                ps.setTimestamp(3, Timestamp.from(Instant.now()));
                ps.setString(4, id);
                ps.setString(5, stored);
                return ps.executeUpdate() > 0;
            }
        });
    }

    public void setState(Tx tx, String id, IncidentState state) {
        tx.run(c -> {
            // Resolved, the incident gives up its subject: the next alert about it opens a new one. Nothing reopens a
            // resolved incident, so an open state leaves open_subject as it is.
            try (PreparedStatement ps = c.prepareStatement("update incidents set state = ?, updated_at = ?, resolved_at = ?,"
                    + " open_subject = case when ? then null else open_subject end where id = ?")) {
                Instant now = Instant.now();
                ps.setString(1, state.name());
                ps.setTimestamp(2, Timestamp.from(now));
                ps.setTimestamp(3, state == IncidentState.RESOLVED ? Timestamp.from(now) : null);
                ps.setBoolean(4, state == IncidentState.RESOLVED);
                ps.setString(5, id);
                ps.executeUpdate();
            }
        });
    }

    public Optional<Incident> find(String id) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from incidents where id = ?")) {
                ps.setString(1, id);
                List<Incident> found = map(ps);
                return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
            }
        });
    }

    public List<Incident> list(IncidentFilter f) {
        StringBuilder sql = new StringBuilder("select " + COLUMNS + " from incidents where 1=1");
        List<Object> args = new ArrayList<>();
        if (f.state() != null) { sql.append(" and state = ?"); args.add(f.state().name()); }
        if (f.family() != null) { sql.append(" and family = ?"); args.add(f.family()); }
        if (f.node() != null) { sql.append(" and node = ?"); args.add(f.node()); }
        if (f.namespace() != null) { sql.append(" and subject_ns = ?"); args.add(f.namespace()); }
        if (f.since() != null) { sql.append(" and opened_at >= ?"); args.add(Timestamp.from(f.since())); }
        if (f.before() != null) { sql.append(" and opened_at < ?"); args.add(Timestamp.from(f.before())); }
        sql.append(" order by opened_at desc, id limit ").append(Math.max(1, Math.min(f.limit(), 500)));
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                for (int i = 0; i < args.size(); i++) {
                    ps.setObject(i + 1, args.get(i));
                }
                return map(ps);
            }
        });
    }

    private static List<Incident> map(PreparedStatement ps) throws SQLException {
        List<Incident> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Subject subject = new Subject(Subject.Kind.valueOf(rs.getString(2)), rs.getString(3), rs.getString(4));
                double confidence = rs.getDouble(8);
                Double conf = rs.wasNull() ? null : confidence;
                Timestamp resolved = rs.getTimestamp(12);
                out.add(new Incident(rs.getString(1), subject, rs.getString(5), IncidentState.valueOf(rs.getString(6)),
                        rs.getString(7), conf, rs.getInt(9), rs.getTimestamp(10).toInstant(),
                        rs.getTimestamp(11).toInstant(), resolved == null ? null : resolved.toInstant(),
                        rs.getString(13), rs.getString(14)));
            }
        }
        return out;
    }
}
