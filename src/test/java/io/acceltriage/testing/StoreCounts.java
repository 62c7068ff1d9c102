package io.acceltriage.testing;

import io.acceltriage.store.Database;
import java.sql.ResultSet;

/**
 * What a batch of refused requests must leave as it found: the rows of alerts, incidents, actions and
 * the audit log. Refusals themselves are audited by design (access.denied), and the service starts its
 * chain key once at start-up (audit.keyed, written while the first test of a run may already be under
 * way), so those records are not counted; everything else a request could store or set off is.
 */
public record StoreCounts(long alerts, long incidents, long actions, long audit) {

    public static StoreCounts of(Database database) {
        return database.read(c -> new StoreCounts(count(c, "select count(*) from alerts"), count(c, "select count(*) from incidents"),
                count(c, "select count(*) from actions"), count(c, "select count(*) from audit_log where kind not in ('access.denied', 'audit.keyed')")));
    }

    /**
     * The counts once work set off by earlier tests (filing their alerts, running their actions,
     * triage, notifications) has finished: no alert waiting to be filed and no action planned but not
     * yet run (for up to 8 s: one stuck for good must not stall every test), and the same counts
     * three times over 600 ms; or whatever they are after 20 s.
     */
    public static StoreCounts settled(Database database) {
        StoreCounts last = of(database);
        int same = 0;
        long start = System.nanoTime();
        long deadline = start + 20_000_000_000L;
        while (System.nanoTime() < deadline && same < 2) {
            sleep(300);
            StoreCounts now = of(database);
            boolean busy = System.nanoTime() - start < 8_000_000_000L
                    && database.read(c -> count(c, "select count(*) from alerts where processed_at is null")
                            + count(c, "select count(*) from actions where status = 'PLANNED'")) > 0;
            same = now.equals(last) && !busy ? same + 1 : 0;
            last = now;
        }
        return last;
    }

    private static long count(java.sql.Connection c, String sql) throws java.sql.SQLException {
        try (var ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
