package io.acceltriage.incident;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.acceltriage.testing.ServerProcess;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** One alert the store will never take into an incident must not stop the alerts queued behind it. */
@QuarkusTest
class UnfileableAlertTest {

    @Inject
    Database database;

    @Test
    void anAlertThatCannotBeFiledIsSetAsideAuditedAndTheNextAlertIsStillTriaged() {
        // Written straight to the inbox, as an older version or a hand edit could have: its node name is
        // longer than any incident's subject can hold, so filing it fails for what it is, every time.
        String poison = "bad" + UUID.randomUUID().toString().replace("-", "").substring(0, 13);
        String hugeNode = "gpu-" + "x".repeat(1200);
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("insert into alerts (dedup_key, group_key, fingerprint, status, alertname, labels,"
                    + " annotations, starts_at, ends_at, generator_url, received_at) values (?,?,?,?,?,?,?,?,?,?,?)")) {
                ps.setString(1, "dedup-" + poison);
                ps.setString(2, "{}:{test=poison}");
                ps.setString(3, poison);
                ps.setString(4, "firing");
                ps.setString(5, "GpuXidDeviceFault");
                ps.setString(6, "{\"alertname\":\"GpuXidDeviceFault\",\"node\":\"" + hugeNode + "\",\"xid\":\"79\"}");
                ps.setString(7, "{}");
                ps.setTimestamp(8, Timestamp.from(Instant.parse("2026-11-30T10:00:00Z")));
                ps.setTimestamp(9, null);
                ps.setString(10, null);
                ps.setTimestamp(11, Timestamp.from(Instant.now()));
                ps.executeUpdate();
            }
            return null;
        });
        String good = "600d" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        given().header("Authorization", "Bearer test-token").contentType("application/json").body("""
                {"version":"4","groupKey":"{}:{test=after-poison}","status":"firing","receiver":"acceltriage",
                 "alerts":[{"status":"firing","labels":{"alertname":"GpuTemperatureWatch","node":"cpu-system-02","severity":"info"},
                   "annotations":{},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(good)).post("/api/v1/alerts").then().statusCode(200);

        long deadline = System.currentTimeMillis() + 30_000;
        while (incidentOf(good) == null && System.currentTimeMillis() < deadline) ServerProcess.sleep(100);
        assertNotNull(incidentOf(good), "the alert behind the unfileable one was never filed");
        assertTrue(processed(poison), "the unfileable alert is out of the queue");
        assertNull(incidentOf(poison), "and under no incident");
        assertEquals(1, setAsideRecords(poison), "its setting aside is audited once");
    }

    private String incidentOf(String fingerprint) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select incident_id from alerts where fingerprint = ?")) {
                ps.setString(1, fingerprint);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        });
    }

    private boolean processed(String fingerprint) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select processed_at from alerts where fingerprint = ?")) {
                ps.setString(1, fingerprint);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getTimestamp(1) != null;
                }
            }
        });
    }

    private long setAsideRecords(String fingerprint) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from audit_log where kind = 'alert.set-aside' and payload like ?")) {
                ps.setString(1, "%" + fingerprint + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }
}
