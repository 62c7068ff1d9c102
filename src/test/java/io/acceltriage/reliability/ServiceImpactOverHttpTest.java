package io.acceltriage.reliability;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.acceltriage.testing.PrometheusProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The service impact of a fault, end to end: the service configured with a real Prometheus holding an
 * hour of the sandbox's vLLM deployment's series (the shared {@link PrometheusProfile}) (serve/vllm-llama, one replica on gpu-a100-04, which
 * slowed and aborted requests after the fault); an alert about that node whose fault began 45 minutes
 * ago; the leader's watch reads the impact once, stores it in the audit trail and tells it; the API,
 * the incident page and the chat message show the figures Prometheus computed.
 */
@QuarkusTest
@TestProfile(PrometheusProfile.class)
class ServiceImpactOverHttpTest {

    static final String NODE = "gpu-a100-04";
    static final Instant FAULT = PrometheusProfile.FAULT;

    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;

    @jakarta.inject.Inject
    ImpactWatch watch;

    @jakarta.inject.Inject
    io.acceltriage.notify.IncidentMessages messages;

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void aFaultUnderAServingReplicaStatesWhatItDidToLatencyAndFailedRequests() throws Exception {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        FreshFleet.forget(freshDatabase, NODE);
        String alert = """
                {"version":"4","groupKey":"{}:{alertname=\\"GpuDoubleBitEccError\\"}","status":"firing","receiver":"acceltriage",
                 "alerts":[{"status":"firing","labels":{"alertname":"GpuDoubleBitEccError","node":"%s","Hostname":"%s","gpu":"0","severity":"critical"},
                   "annotations":{"summary":"Double-bit ECC error on %s GPU 0"},"startsAt":"%s","endsAt":"0001-01-01T00:00:00Z",
                   "fingerprint":"5e1f1ce1a1b2c3d4"}]}
                """.formatted(NODE, NODE, NODE, FAULT);
        given().header("Authorization", "Bearer test-token").contentType("application/json").body(alert).post("/api/v1/alerts").then()
                .statusCode(200);
        String id = awaitTriaged();

        JsonPath before = report();
        assertEquals("pending", before.getString(timing(id) + ".impact.status"), "not read until the leader's watch reads it");

        assertTrue(watch.check(Instant.now()) >= 1, "the watch measured the incident");

        JsonPath after = report();
        String impact = timing(id) + ".impact";
        assertEquals("measured", after.getString(impact + ".status"), after.prettify());
        assertEquals(FAULT, Instant.parse(after.getString(impact + ".faultAt")), "the alert's startsAt is the fault's start");
        assertEquals(0.4975, after.getDouble(impact + ".readings.find { it.tool == 'vllm_latency_p99_over' }.before"), 1e-3);
        assertEquals(4.925, after.getDouble(impact + ".readings.find { it.tool == 'vllm_latency_p99_over' }.after"), 1e-3);
        assertEquals(180.0, after.getDouble(impact + ".readings.find { it.tool == 'vllm_failed_requests_over' }.after"), 180 * 0.02);
        assertTrue(after.getList(impact + ".readings.namespace").stream().allMatch("serve"::equals),
                "only the namespace of the workload on the node: " + after.getList(impact + ".readings"));

        String page = given().get("/incidents/" + id).then().statusCode(200).extract().asString();
        assertTrue(page.contains("What the fault did to the service") && page.contains("<code>vllm_latency_p99_over</code>")
                && page.contains("4.93 s"), page);

        List<String> stored = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=impact.measured&incident=" + id).then()
                .statusCode(200).extract().jsonPath().getList("items.payload.status");
        assertEquals(List.of("measured"), stored);
        List<String> told = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=notification&incident=" + id).then()
                .statusCode(200).extract().jsonPath().getList("items.payload.event");
        assertTrue(told.contains("service_impact"), "told through notify: " + told);
        var message = messages.of(new io.acceltriage.notify.Notice(id, "service_impact", "node:" + NODE, "device", 0.9,
                "What the fault did to the service: " + after.getString(impact + ".summary"), List.of(), null));
        assertTrue(message.summary().contains("serve latency p99 0.498 s → 4.93 s"), message.summary());

        watch.check(Instant.now());
        assertEquals(1, given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=impact.measured&incident=" + id).then()
                .extract().jsonPath().getList("items").size(), "measured once");
    }

    private static String timing(String id) {
        return "timings.find { it.incidentId == '" + id + "' }";
    }

    private static JsonPath report() {
        return given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/reliability?since=2020-01-01T00:00:00Z").then().statusCode(200)
                .extract().jsonPath();
    }

    private static String awaitTriaged() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            JsonPath list = given().queryParam("node", NODE).get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            if (!list.getList("items").isEmpty()) {
                String id = list.getString("items[0].id");
                JsonPath one = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
                if (one.get("assessment") != null && !one.getList("assessment.evidence.pods").isEmpty()) return id;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no triaged incident for " + NODE + " within 60 s");
    }
}
