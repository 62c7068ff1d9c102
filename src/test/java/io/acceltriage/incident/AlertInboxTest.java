package io.acceltriage.incident;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
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
        long alertId = InboxRows.insert(database, "{}:{test=resolve}", fingerprint, status, Map.of("alertname", "GpuXidError"),
                Instant.now());
        database.transaction(tx -> {
            inbox.file(tx, alertId, incidentId);
            return null;
        });
    }
}
