package io.acceltriage.history;

import io.acceltriage.store.Database;
import io.acceltriage.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gpu_faults table: every XID platform sources reported on a GPU, per incident. A GPU is
 * remembered across incidents, so a fault that comes back a day later meets its past.
 */
@ApplicationScoped
public class FaultHistory {

    private static final String COLUMNS = "node, gpu, uuid, xid, fatal, process, source, incident_id, at";

    private final Database database;

    public FaultHistory(Database database) {
        this.database = database;
    }

    /** Records faults in the caller's transaction; one already recorded for its GPU, XID, process and incident is kept as it was. */
    public void record(Tx tx, List<GpuFault> faults) {
        if (faults.isEmpty()) return;
        tx.run(c -> {
            // Portable across H2 and PostgreSQL: insert only what is not there (triage runs on one thread).
            try (PreparedStatement ps = c.prepareStatement("insert into gpu_faults (" + COLUMNS + ") select ?,?,?,?,?,?,?,?,?"
                    + " where not exists (select 1 from gpu_faults where node = ? and gpu = ? and xid = ? and process = ? and incident_id = ?)")) {
                for (GpuFault f : faults) {
                    ps.setString(1, cut(f.node(), 253));
                    ps.setString(2, cut(f.gpu(), 128));
                    ps.setString(3, cut(f.uuid(), 128));
                    ps.setInt(4, f.xid());
                    ps.setBoolean(5, f.fatal());
                    ps.setString(6, cut(f.process(), 320));
                    ps.setString(7, f.source());
                    ps.setString(8, f.incidentId());
                    ps.setTimestamp(9, Timestamp.from(f.at()));
                    ps.setString(10, cut(f.node(), 253));
                    ps.setString(11, cut(f.gpu(), 128));
                    ps.setInt(12, f.xid());
                    ps.setString(13, cut(f.process(), 320));
                    ps.setString(14, f.incidentId());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        });
    }

    /** Faults on any GPU of these nodes at or after {@code since}, oldest first. */
    public List<GpuFault> onNodes(java.util.Collection<String> nodes, Instant since) {
        if (nodes.isEmpty()) return List.of();
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from gpu_faults where node in ("
                    + String.join(",", nodes.stream().map(n -> "?").toList()) + ") and at >= ? order by at, id")) {
                int i = 1;
                for (String n : nodes) ps.setString(i++, n);
                ps.setTimestamp(i, Timestamp.from(since));
                return map(ps);
            }
        });
    }

    /** Faults on GPU {@code gpu} (its index or its UUID) of {@code node} at or after {@code since}, oldest first. */
    public List<GpuFault> onGpu(String node, String gpu, Instant since) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from gpu_faults where at >= ?"
                    + " and ((node = ? and gpu = ?) or uuid = ?"
                    + " or (node = ? and uuid in (select uuid from gpu_faults where node = ? and gpu = ? and uuid is not null)))"
                    + " order by at, id")) {
                ps.setTimestamp(1, Timestamp.from(since));
                ps.setString(2, node);
                ps.setString(3, gpu);
                ps.setString(4, gpu);
                ps.setString(5, node);
                ps.setString(6, node);
                ps.setString(7, gpu);
                return map(ps);
            }
        });
    }

    /**
     * The fatal XIDs of GPU {@code gpu} (index or UUID) of {@code node} at or after {@code since}, each incident's
     * sighting of an XID once, oldest first: what the policy's repeat-offender rule counts.
     */
    public List<GpuFault> fatalOnGpu(String node, String gpu, Instant since) {
        return once(onGpu(node, gpu, since).stream().filter(GpuFault::fatal).toList());
    }

    /** The fatal XIDs of every GPU of {@code node} at or after {@code since}, each incident's sighting of an XID once. */
    public List<GpuFault> fatalOnNode(String node, Instant since) {
        return once(onNodes(List.of(node), since).stream().filter(GpuFault::fatal).toList());
    }

    /** Each incident's sighting of an XID on a GPU once (a re-triage of an incident records no second one). */
    private static List<GpuFault> once(List<GpuFault> faults) {
        Map<String, GpuFault> first = new LinkedHashMap<>();
        faults.forEach(f -> first.putIfAbsent(f.node() + "/" + f.gpu() + "|" + f.incidentId() + "|" + f.xid(), f));
        return List.copyOf(first.values());
    }

    /** Fatal XIDs per GPU ({@code node/gpu}) at or after {@code since}, counted as the repeat-offender rule counts them. */
    public Map<String, Long> fatalPerGpu(Instant since) {
        Map<String, Long> out = new LinkedHashMap<>();
        once(fatalSince(since)).forEach(f -> out.merge(f.node() + "/" + f.gpu(), 1L, Long::sum));
        return out;
    }

    private List<GpuFault> fatalSince(Instant since) {
        return database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select " + COLUMNS + " from gpu_faults where fatal and at >= ? order by at, id")) {
                ps.setTimestamp(1, Timestamp.from(since));
                return map(ps);
            }
        });
    }

    /**
     * GPUs with at least {@code fatalFaults} fatal XIDs at or after {@code since} (each incident's
     * sighting of an XID on a GPU counts once), the most recent offender first: the fleet page's list.
     */
    public List<RepeatOffender> repeatOffenders(Instant since, int fatalFaults) {
        List<GpuFault> fatal = fatalSince(since);
        Map<String, List<GpuFault>> byGpu = new LinkedHashMap<>();
        for (GpuFault f : fatal) {
            byGpu.computeIfAbsent(f.node() + "/" + f.gpu(), k -> new ArrayList<>()).add(f);
        }
        List<RepeatOffender> out = new ArrayList<>();
        byGpu.values().forEach(faults -> {
            long incidents = faults.stream().map(f -> f.incidentId() + "|" + f.xid()).distinct().count();
            if (incidents < fatalFaults) return;
            GpuFault first = faults.get(0);
            out.add(new RepeatOffender(first.node(), first.gpu(), faults.stream().map(GpuFault::uuid)
                    .filter(java.util.Objects::nonNull).findFirst().orElse(null), List.copyOf(faults)));
        });
        out.sort(java.util.Comparator.comparing(RepeatOffender::last).reversed());
        return out;
    }

    private static List<GpuFault> map(PreparedStatement ps) throws SQLException {
        List<GpuFault> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new GpuFault(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getBoolean(5),
                        rs.getString(6), rs.getString(7), rs.getString(8), rs.getTimestamp(9).toInstant()));
            }
        }
        return out;
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
