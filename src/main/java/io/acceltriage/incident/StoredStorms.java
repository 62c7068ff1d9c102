package io.acceltriage.incident;

import io.acceltriage.store.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The storm window of {@link StormWindow}, read from the inbox: firing alerts of one alertname about
 * more distinct subjects than the threshold, received within the window around an alert. Every
 * replica on the database reads the same alerts, so they judge a storm alike, and a restart forgets
 * nothing.
 */
final class StoredStorms implements Correlator.Storms {

    private final Database database;
    private final int threshold;
    private final Duration window;
    /**
     * Alertnames found storming, by the second of the alert asked about: a storm of thousands of
     * alerts costs a query per alertname and second, not per alert. A storm only grows as alerts
     * arrive, so a yes stays a yes; a no is asked again.
     */
    private final Map<String, Long> stormingAt = new ConcurrentHashMap<>();

    StoredStorms(Database database, int threshold, Duration window) {
        new StormWindow(threshold, window); // the same checks of the settings, with the same messages
        this.database = database;
        this.threshold = threshold;
        this.window = window;
    }

    @Override
    public void record(String alertname, String subjectKey, Instant at) {
        // The inbox stored it already (AlertInbox: subject_hash).
    }

    @Override
    public boolean storming(String alertname, Instant at) {
        long second = at.getEpochSecond();
        Long known = stormingAt.get(alertname);
        if (known != null && known == second) return true;
        boolean storming = database.read(c -> {
            try (PreparedStatement ps = c.prepareStatement("select count(distinct subject_hash) from alerts where alertname = ?"
                    + " and status = 'firing' and received_at >= ? and received_at <= ?")) {
                ps.setString(1, alertname);
                ps.setTimestamp(2, Timestamp.from(at.minus(window)));
                ps.setTimestamp(3, Timestamp.from(at.plus(window)));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > threshold;
                }
            }
        });
        if (storming) stormingAt.put(alertname, second);
        return storming;
    }
}
