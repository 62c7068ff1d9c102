package io.acceltriage.action;

import io.acceltriage.store.Tx;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.store.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The actions table: one row per idempotency key, so the same action is never recorded or applied twice. */
final class ActionStore {

    private static final String COLUMNS = "id, incident_id, kind, target, decision, status, dry_run, detail, created_at, updated_at,"
            + " subject_uid, at_checkpoint";

    /** Statuses of actions that touched, or are about to touch, the cluster: what budgets and the breaker count. */
    static final List<ActionStatus> COUNTED = List.of(ActionStatus.PLANNED, ActionStatus.VERIFYING, ActionStatus.SUCCEEDED, ActionStatus.UNVERIFIED,
            ActionStatus.FAILED, ActionStatus.UNDONE);

    private final Database database;

    ActionStore(Database database) {
        this.database = database;
    }

    Optional<ActionRecord> byKey(Tx tx, String key) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where idempotency_key = ?")) {
                ps.setString(1, key);
                List<ActionRecord> r = map(ps);
                return r.isEmpty() ? Optional.empty() : Optional.of(r.get(0));
            }
        });
    }

    ActionRecord insert(Tx tx, String key, String incidentId, ActionKind kind, String target, Decision decision,
            ActionStatus status, boolean dryRun, String detail, String subjectUid) {
        return insert(tx, key, incidentId, kind, target, decision, status, dryRun, detail, subjectUid, false);
    }

    ActionRecord insert(Tx tx, String key, String incidentId, ActionKind kind, String target, Decision decision,
            ActionStatus status, boolean dryRun, String detail, String subjectUid, boolean atCheckpoint) {
        return tx.sql(c -> {
            Instant now = Instant.now();
            ActionRecord r = new ActionRecord("act-" + UUID.randomUUID().toString().substring(0, 13).replace("-", ""),
                    incidentId, kind, target, decision, status, dryRun, detail, now, now, subjectUid, atCheckpoint);
            try (PreparedStatement ps = c.prepareStatement("insert into actions (id, idempotency_key, incident_id, kind, target,"
                    + " decision, status, dry_run, detail, created_at, updated_at, subject_uid, at_checkpoint)"
                    + " values (?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
                ps.setString(1, r.id());
                ps.setString(2, key);
                ps.setString(3, incidentId);
                ps.setString(4, kind.wireName());
                ps.setString(5, target);
                ps.setString(6, decision.wireName());
                ps.setString(7, status.name());
                ps.setBoolean(8, dryRun);
                ps.setString(9, detail);
                ps.setTimestamp(10, Timestamp.from(now));
                ps.setTimestamp(11, Timestamp.from(now));
                ps.setString(12, subjectUid);
                ps.setBoolean(13, atCheckpoint);
                ps.executeUpdate();
            }
            return r;
        });
    }

    ActionRecord update(Tx tx, ActionRecord r, ActionStatus status, String detail) {
        return tx.sql(c -> {
            Instant now = Instant.now();
            try (PreparedStatement ps = c.prepareStatement("update actions set status = ?, detail = ?, updated_at = ? where id = ?")) {
                ps.setString(1, status.name());
                ps.setString(2, detail);
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setString(4, r.id());
                ps.executeUpdate();
            }
            return new ActionRecord(r.id(), r.incidentId(), r.kind(), r.target(), r.decision(), status, r.dryRun(), detail,
                    r.createdAt(), now, r.subjectUid(), r.atCheckpoint());
        });
    }

    /** Records the uid of a planned action's target, read once the action was recorded (see {@link Executor#runLater}). */
    ActionRecord subjectUid(Tx tx, ActionRecord r, String uid) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("update actions set subject_uid = ? where id = ? and subject_uid is null")) {
                ps.setString(1, uid);
                ps.setString(2, r.id());
                ps.executeUpdate();
            }
            return new ActionRecord(r.id(), r.incidentId(), r.kind(), r.target(), r.decision(), r.status(), r.dryRun(), r.detail(),
                    r.createdAt(), r.updatedAt(), uid, r.atCheckpoint());
        });
    }

    /**
     * Moves an action from one status to another only if it is still in the first: two people
     * approving at once, or two replicas resuming, change it once. Empty when someone else won.
     */
    Optional<ActionRecord> transition(Tx tx, ActionRecord r, ActionStatus from, ActionStatus to, String detail,
            String subjectUid) {
        return tx.sql(c -> {
            Instant now = Instant.now();
            try (PreparedStatement ps = c.prepareStatement(
                    "update actions set status = ?, detail = ?, updated_at = ?, subject_uid = ? where id = ? and status = ?")) {
                ps.setString(1, to.name());
                ps.setString(2, detail);
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setString(4, subjectUid);
                ps.setString(5, r.id());
                ps.setString(6, from.name());
                if (ps.executeUpdate() == 0) return Optional.empty();
            }
            return Optional.of(new ActionRecord(r.id(), r.incidentId(), r.kind(), r.target(), r.decision(), to, r.dryRun(), detail,
                    r.createdAt(), now, subjectUid, r.atCheckpoint()));
        });
    }

    Optional<ActionRecord> byId(String id) {
        return database.read(c -> byId(Tx.over(c), id));
    }

    Optional<ActionRecord> byId(Tx tx, String id) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where id = ?")) {
                ps.setString(1, id);
                List<ActionRecord> r = map(ps);
                return r.isEmpty() ? Optional.empty() : Optional.of(r.get(0));
            }
        });
    }

    List<ActionRecord> recent(int limit) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions order by created_at desc")) {
                ps.setMaxRows(limit);
                return map(ps);
            }
        });
    }

    /** Actions counted by budgets and the breaker, started at or after {@code since}. */
    List<ActionRecord> countedSince(Instant since) {
        return database.read(c -> {
            String marks = String.join(",", COUNTED.stream().map(x -> "?").toList());
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where created_at >= ? and dry_run = false"
                    + " and status in (" + marks + ") order by created_at")) {
                ps.setTimestamp(1, Timestamp.from(since));
                for (int i = 0; i < COUNTED.size(); i++) ps.setString(i + 2, COUNTED.get(i).name());
                return map(ps);
            }
        });
    }

    List<ActionRecord> ofIncident(String incidentId) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where incident_id = ? order by created_at")) {
                ps.setString(1, incidentId);
                return map(ps);
            }
        });
    }

    List<ActionRecord> withStatus(ActionStatus status) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where status = ? order by created_at")) {
                ps.setString(1, status.name());
                return map(ps);
            }
        });
    }

    /** Actions allowed and not yet applied (PLANNED, not dry runs), read in {@code tx}. */
    List<ActionRecord> planned(Tx tx) {
        return tx.sql(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from actions where status = ? and dry_run = false"
                    + " order by created_at")) {
                ps.setString(1, ActionStatus.PLANNED.name());
                return map(ps);
            }
        });
    }

    /** Node → incident of the latest successful cordon of it by this service. */
    java.util.Map<String, String> cordonedNodes() {
        return database.read(c -> {
            java.util.Map<String, String> out = new java.util.HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "select target, incident_id from actions where kind = 'cordon-node' and status in ('VERIFYING', 'SUCCEEDED') order by updated_at");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getString(1), rs.getString(2));
            }
            return out;
        });
    }

    private static List<ActionRecord> map(PreparedStatement ps) throws SQLException {
        List<ActionRecord> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new ActionRecord(rs.getString(1), rs.getString(2), ActionKind.parse(rs.getString(3)), rs.getString(4),
                        Decision.valueOf(rs.getString(5).toUpperCase()), ActionStatus.valueOf(rs.getString(6)), rs.getBoolean(7),
                        rs.getString(8), rs.getTimestamp(9).toInstant(), rs.getTimestamp(10).toInstant(), rs.getString(11),
                        rs.getBoolean(12)));
            }
        }
        return out;
    }
}
