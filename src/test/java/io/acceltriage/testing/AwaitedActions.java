package io.acceltriage.testing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Waiting, over the actions API, for an action of a kind and target to reach a status (the caller's signed-in spec applies). */
public final class AwaitedActions {

    private AwaitedActions() {}

    /** The action once it has the status; fails after two minutes listing every action there is. */
    public static Map<String, Object> await(String kind, String target, String status) {
        return await(kind, target, status, a -> true);
    }

    /**
     * The action once it ran and its check afterwards passed: SUCCEEDED, stored with "verified: …" in its detail (until
     * the check ends the action is VERIFYING).
     */
    public static Map<String, Object> awaitVerified(String kind, String target) {
        return await(kind, target, "succeeded");
    }

    private static Map<String, Object> await(String kind, String target, String status, java.util.function.Predicate<Map<String, Object>> done) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (true) {
            List<Map<String, Object>> items = given().queryParam("status", status).get("/api/v1/actions").jsonPath().getList("items");
            Optional<Map<String, Object>> found = items.stream().filter(a -> kind.equals(a.get("kind")) && target.equals(a.get("target")))
                    .filter(done).findFirst();
            if (found.isPresent()) return found.get();
            assertFalse(Instant.now().isAfter(deadline), "no " + status + " " + kind + " " + target + "; actions: "
                    + given().get("/api/v1/actions").jsonPath().getList("items"));
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Map.of();
            }
        }
    }
}
