package io.acceltriage.incident;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.store.Database;
import io.acceltriage.store.Json;
import io.acceltriage.store.TestDatabases;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the inbox answers from the store about an incident's alerts, on H2 and (when configured) PostgreSQL. */
class AlertInboxTest {

    static Stream<Database> databases() {
        return TestDatabases.all().stream();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void anIncidentIsAllResolvedWhenTheLastAlertOfEachFingerprintIsResolved(Database database) {
        AlertInbox inbox = new AlertInbox(database, TestAudit.on(database), null);
        IncidentStore incidents = new IncidentStore(database);
        String node = "gpu-res-" + UUID.randomUUID().toString().substring(0, 8);
        String id = database.transaction(tx -> incidents.open(tx, Subject.node(node), node, Instant.now()).id());
        assertFalse(inbox.allResolved(id), "an incident without alerts is not resolved by them");

        file(database, inbox, id, "xid-gpu0", "firing");
        file(database, inbox, id, "xid-gpu1", "firing");
        assertFalse(inbox.allResolved(id));
        file(database, inbox, id, "xid-gpu0", "resolved");
        assertFalse(inbox.allResolved(id), "gpu1 still fires");
        file(database, inbox, id, "xid-gpu1", "resolved");
        assertTrue(inbox.allResolved(id));
        file(database, inbox, id, "xid-gpu0", "firing");
        assertFalse(inbox.allResolved(id), "gpu0 fired again after its resolution");
        // Another incident's alerts of the same fingerprint do not count for this one.
        String other = database.transaction(tx -> incidents.open(tx, Subject.node(node + "-b"), node + "-b", Instant.now()).id());
        file(database, inbox, other, "xid-gpu0", "resolved");
        assertFalse(inbox.allResolved(id));
        assertTrue(inbox.allResolved(other));
    }

    /** Stores an alert as the webhook does and files it under the incident as the filer does. */
    private static void file(Database database, AlertInbox inbox, String incidentId, String fingerprint, String status) {
        long alertId = database.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("insert into alerts (dedup_key, group_key, fingerprint, status, alertname, labels,"
                    + " annotations, starts_at, received_at) values (?,?,?,?,?,?,?,?,?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, "dedup-" + UUID.randomUUID());
                ps.setString(2, "{}:{test=resolve}");
                ps.setString(3, fingerprint);
                ps.setString(4, status);
                ps.setString(5, "GpuXidError");
                ps.setString(6, Json.write(Map.of("alertname", "GpuXidError")));
                ps.setString(7, "{}");
                ps.setTimestamp(8, Timestamp.from(Instant.now()));
                ps.setTimestamp(9, Timestamp.from(Instant.now()));
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return keys.getLong(1);
                }
            }
        });
        database.transaction(tx -> {
            inbox.file(tx, alertId, incidentId);
            return null;
        });
    }
}
