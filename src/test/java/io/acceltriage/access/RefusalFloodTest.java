package io.acceltriage.access;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.store.Database;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** A flood of refused requests with long paths adds a record or two to the audit log, not one per request. */
@QuarkusTest
class RefusalFloodTest {

    @Inject
    Database database;

    @Test
    void floodsOfRefusedRequestsWithLongPathsAddARecordOrTwoWithThePathsCut() {
        long before = refusals();
        long startedMinute = System.currentTimeMillis() / 60_000;
        String path = "/api/v1/" + "a".repeat(3000);
        for (int i = 0; i < 200; i++) {
            given().get(path + i).then().statusCode(401);
            // Signed in, but not allowed: the reason quotes the path, which differs every time.
            given().spec(TestAuth.bearer(TestAuth.VIEWER)).post(path + "/" + i).then().statusCode(403);
        }
        long added = refusals() - before;
        // The first refusal of each client and reason in an interval (a minute) is recorded (none if one was already,
        // moments ago, by another test); the rest are one summary when the interval ends. On a loaded machine the loop
        // may span more than one minute: each minute it touched adds at most those four.
        long minutes = System.currentTimeMillis() / 60_000 - startedMinute + 1;
        assertTrue(added <= 4 * minutes, "400 refusals over " + minutes + " minute(s) added " + added + " audit records");
        long longest = database.read(c -> {
            try (var ps = c.prepareStatement("select coalesce(max(length(payload)), 0) from audit_log where kind = 'access.denied'");
                    var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
        assertTrue(longest < 1000, "no refusal record carries a whole path: the longest has " + longest + " characters");
    }

    private long refusals() {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from audit_log where kind = 'access.denied'"); var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
