package io.acceltriage;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import io.acceltriage.sandbox.Sandbox;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The running service reads the cluster through its watched view: ready once synced, and a change made by someone else shows. */
@QuarkusTest
class ClusterViewTest {

    @Inject
    Sandbox sandbox;

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) throw new AssertionError("not within 30 s: " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void readinessSaysTheViewIsSyncedAndWhatItHolds() throws InterruptedException {
        await("the view syncs", () -> "synced".equals(given().get("/q/health/ready").jsonPath()
                .getString("checks.find { it.name == 'cluster-view' }.data.watch")));
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'cluster-view' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'cluster-view' }.data.nodes", greaterThan(0))
                .body("checks.find { it.name == 'cluster-view' }.data.pods", greaterThan(0));
    }

    @Test
    void aNodeCordonedByAnotherClientShowsOnTheFleetPage() throws InterruptedException {
        String node = "gpu-a100-02";
        Pattern cordoned = Pattern.compile("class=\"node cordoned[^\"]*\" id=\"node-" + node + "\">");
        // the sandbox's own client: a write the service did not make, which only the watch can tell it about
        sandbox.client().nodes().withName(node).edit(n -> { n.getSpec().setUnschedulable(true); return n; });
        try {
            await("the fleet page shows the cordon", () -> cordoned.matcher(fleet()).find());
        } finally {
            sandbox.client().nodes().withName(node).edit(n -> { n.getSpec().setUnschedulable(false); return n; });
        }
        await("the fleet page shows the uncordon", () -> !cordoned.matcher(fleet()).find());
    }

    private static String fleet() {
        return given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/fleet").then().statusCode(200).extract().asString();
    }
}
