package io.acceltriage.testing;

import static io.restassured.RestAssured.given;

import io.acceltriage.TestAuth;
import io.acceltriage.policy.Breaker;
import io.acceltriage.store.Database;

/**
 * The shared service as a test that needs its actions to run must find it: the work earlier tests set
 * off finished, the simulated fleet as seeded (no node left cordoned), no earlier test's actions on record, and the
 * circuit breaker closed. Tests share one store, so a breaker another test tripped on purpose, a node another test
 * cordoned within the policy's cooldown, or the fleet's hourly cordon budget spent by earlier tests would otherwise
 * refuse this test's cordon (the audit keeps every action all the same).
 */
public final class FreshFleet {

    private FreshFleet() {}

    public static void prepare(Database database, Breaker breaker) {
        StoreCounts.settled(database);
        given().spec(TestAuth.bearer(TestAuth.ADMIN)).post("/api/v1/sandbox/reset").then().statusCode(200);
        database.inTransaction(c -> {
            try (var st = c.createStatement()) {
                st.executeUpdate("delete from actions");
            }
            return null;
        });
        breaker.reset("test: a fresh fleet");
    }

    /**
     * Forgets a node's incidents, their alerts and its GPUs' fault history (the audit keeps them all): other tests of the
     * run look incidents up by node, and a test that faults a node must not meet an earlier test's incident or faults.
     */
    public static void forget(Database database, String node) {
        database.inTransaction(c -> {
            try (var ps = c.prepareStatement("delete from gpu_faults where node = ?")) {
                ps.setString(1, node);
                ps.executeUpdate();
            }
            for (String table : java.util.List.of("alerts", "incidents")) {
                String column = table.equals("alerts") ? "incident_id" : "id";
                try (var ps = c.prepareStatement("delete from " + table + " where " + column + " in (select id from incidents where node = ?)")) {
                    ps.setString(1, node);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }
}
