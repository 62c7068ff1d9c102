package io.acceltriage.testing;

import static io.restassured.RestAssured.given;

import io.acceltriage.TestAuth;
import io.acceltriage.policy.Breaker;
import io.acceltriage.store.Database;

/**
 * The shared service as a test that needs its actions to run must find it: the work earlier tests set
 * off finished, the simulated fleet as seeded (no node left cordoned), and the circuit breaker closed.
 * Tests share one store, so a breaker another test tripped on purpose would otherwise refuse this
 * test's cordon.
 */
public final class FreshFleet {

    private FreshFleet() {}

    public static void prepare(Database database, Breaker breaker) {
        StoreCounts.settled(database);
        given().spec(TestAuth.bearer(TestAuth.ADMIN)).post("/api/v1/sandbox/reset").then().statusCode(200);
        breaker.reset("test: a fresh fleet");
    }
}
