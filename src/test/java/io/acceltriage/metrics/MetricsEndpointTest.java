package io.acceltriage.metrics;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.Sample;
import io.acceltriage.testing.FreshFleet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** /metrics after a fault went through triage: every family of the dashboard, with its type, in the text format. */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Admin.class)
class MetricsEndpointTest {

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;


    private static final Map<String, String> FAMILIES = new LinkedHashMap<>();

    static {
        FAMILIES.put("acceltriage_alerts_received_total", "counter");
        FAMILIES.put("acceltriage_incidents_total", "counter");
        FAMILIES.put("acceltriage_triage_duration_seconds", "histogram");
        FAMILIES.put("acceltriage_decision_latency_seconds", "histogram");
        FAMILIES.put("acceltriage_mitigation_seconds", "histogram");
        FAMILIES.put("acceltriage_inbox_pending_alerts", "gauge");
        FAMILIES.put("acceltriage_actions_total", "counter");
        FAMILIES.put("acceltriage_approvals_total", "counter");
        FAMILIES.put("acceltriage_circuit_breaker_tripped", "gauge");
        FAMILIES.put("acceltriage_model_calls_total", "counter");
        FAMILIES.put("acceltriage_model_tokens_total", "counter");
        FAMILIES.put("acceltriage_evidence_errors_total", "counter");
    }

    @Test
    void aTriagedXidShowsInEveryFamilyOfTheServicesMetrics() {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        List<Sample> before = ExpositionParser.parse(scrape().asString());
        given().contentType("application/json").body("{\"kind\":\"xid\",\"node\":\"gpu-h100-04\",\"gpu\":5,\"xid\":79}")
                .post("/api/v1/sandbox/faults").then().statusCode(202).body("delivered", equalTo(true));
        awaitTriaged("gpu-h100-04");
        // The cordon runs on the executor's workers, after the decision is stored: its time to mitigate is observed
        // once it has run. Other tests' actions may finish meanwhile on the same service, so the cordon is found by
        // its incident and the histogram is read after it.
        awaitCordonSucceeded("gpu-h100-04");
        Response response = scrape();
        assertTrue(response.contentType().startsWith("text/plain; version=0.0.4"), response.contentType());
        String text = response.asString();
        Map<String, String> types = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$").matcher(text);
        while (m.find()) {
            types.put(m.group(1), m.group(2));
        }
        FAMILIES.forEach((name, type) -> assertEquals(type, types.get(name), name + " in\n" + text));
        List<Sample> after = ExpositionParser.parse(text);

        assertEquals(1, delta(before, after, "acceltriage_alerts_received_total", Map.of("status", "firing")), text);
        assertEquals(1, delta(before, after, "acceltriage_incidents_total", Map.of("family", "device")), text);
        assertEquals(1, delta(before, after, "acceltriage_actions_total", Map.of("kind", "cordon-node", "verdict", "allow")), text);
        assertTrue(delta(before, after, "acceltriage_triage_duration_seconds_count", Map.of()) >= 1, text);
        assertEquals(1, delta(before, after, "acceltriage_decision_latency_seconds_count", Map.of()), text);
        assertTrue(delta(before, after, "acceltriage_mitigation_seconds_count", Map.of("family", "device")) >= 1,
                "the cordon ran: the incident's time to mitigate is observed\n" + text);
        assertEquals(0, value(after, "acceltriage_inbox_pending_alerts", Map.of()), "everything filed: " + text);
        assertEquals(0, value(after, "acceltriage_circuit_breaker_tripped", Map.of()), text);
        for (String source : List.of("metrics", "cluster", "logs", "events")) {
            assertTrue(value(after, "acceltriage_evidence_errors_total", Map.of("source", source)) >= 0, "initialised: " + source);
        }
    }

    private static Response scrape() {
        return given().get("/metrics").then().statusCode(200).extract().response();
    }

    private static double delta(List<Sample> before, List<Sample> after, String name, Map<String, String> labels) {
        return value(after, name, labels) - value(before, name, labels);
    }

    private static double value(List<Sample> samples, String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).findFirst().orElse(Double.NaN);
    }

    private static void awaitCordonSucceeded(String node) {
        await("a succeeded cordon of " + node, () -> given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200)
                .extract().jsonPath().<String>getList("items.id").stream()
                .anyMatch(id -> given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath()
                        .getList("actions.findAll { it.kind == 'cordon-node' && it.target == '" + node + "' }.status")
                        .contains("SUCCEEDED")));
    }

    private static void awaitTriaged(String node) {
        await("a triaged incident for " + node, () -> {
            List<String> states = given().queryParam("node", node).get("/api/v1/incidents").then().statusCode(200)
                    .extract().jsonPath().getList("items.state");
            return !states.isEmpty() && !"triaging".equals(states.get(0));
        });
    }

    private static void await(String what, java.util.function.BooleanSupplier done) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            if (done.getAsBoolean()) return;
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        fail("no " + what + " within 30 s");
    }
}
