package io.acceltriage.diagnosis;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.TestAuth;
import io.acceltriage.testing.FreshFleet;
import io.acceltriage.testing.PrometheusProfile;
import io.acceltriage.testing.ServerProcess;
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
 * A fail-slow rank end to end: the service reads device and workload series through a real Prometheus
 * (ACCELTRIAGE_METRICS_SOURCE=prometheus, the shared {@link PrometheusProfile}) that scrapes an exporter the test sets; the sandbox's
 * llm-pretrain gang reports its throughput per rank, and the rank on gpu-h100-02 runs at half its peers'.
 * An alert about the job (its throughput is low, as a rule on the trainer's series would fire) is
 * triaged with every rank's readings: a device degradation naming the slow rank's node and the GPU it
 * holds, escalated, and nothing fenced on the tenant's series alone.
 */
@QuarkusTest
@TestProfile(PrometheusProfile.class)
class StragglerOverHttpTest {

    static final String NODE = "gpu-h100-02";
    static final String FINGERPRINT = Long.toHexString(System.nanoTime());
    @jakarta.inject.Inject
    io.acceltriage.policy.Breaker freshBreaker;

    @jakarta.inject.Inject
    io.acceltriage.store.Database freshDatabase;

    @jakarta.inject.Inject
    io.acceltriage.cluster.ClusterReads cluster;

    @BeforeEach
    void signIn() {
        TestAuth.asAdmin();
    }

    @AfterEach
    void signOut() {
        TestAuth.signOut();
    }

    @Test
    void aRankAtHalfItsPeersThroughputEscalatesNamingItsNodeAndGpuAndFencesNothing() throws Exception {
        FreshFleet.prepare(freshDatabase, freshBreaker);
        FreshFleet.forget(freshDatabase, NODE);
        StringBuilder text = new StringBuilder();
        String slowRank = null;
        for (String node : List.of("gpu-h100-01", "gpu-h100-02", "gpu-h100-03", "gpu-h100-04")) {
            String rank = cluster.podsOn(node).stream().map(p -> p.getMetadata().getName()).filter(n -> n.startsWith("llm-pretrain-workers-0-"))
                    .findFirst().orElseThrow(() -> new AssertionError("the sandbox's gang has no rank on " + node));
            boolean slow = node.equals(NODE);
            if (slow) slowRank = rank;
            // The trainer's own series (relabelled with its node), and dcgm-exporter's utilisation of the GPU it holds.
            text.append("training_samples_per_second{namespace=\"ml\",pod=\"").append(rank).append("\",node=\"").append(node)
                    .append("\",instance=\"trainer-").append(node).append("\"} ").append(slow ? 4800 : 9700).append('\n');
            text.append("DCGM_FI_DEV_GPU_UTIL{Hostname=\"").append(node).append("\",gpu=\"5\",UUID=\"GPU-").append(node)
                    .append("-5\",namespace=\"ml\",pod=\"").append(rank).append("\",instance=\"dcgm-exporter-").append(node).append("\"} 99\n");
        }
        PrometheusProfile.expose("straggler", text.toString());
        PrometheusProfile.prometheus().await("the ranks' series in Prometheus", Duration.ofSeconds(30), () -> {
            String r = ServerProcess.get(PrometheusProfile.prometheus().url() + "/api/v1/query?query=count(training_samples_per_second)");
            return r != null && r.contains("\"4\"]");
        });

        String alert = """
                {"version":"4","groupKey":"{}:{alertname=\\"TrainingThroughputLow\\"}","status":"firing","receiver":"acceltriage",
                 "alerts":[{"status":"firing","labels":{"alertname":"TrainingThroughputLow","namespace":"ml","jobset":"llm-pretrain","severity":"warning"},
                   "annotations":{"summary":"training throughput of ml/llm-pretrain below its usual"},"startsAt":"%s","endsAt":"0001-01-01T00:00:00Z",
                   "fingerprint":"%s"}]}
                """.formatted(Instant.now(), FINGERPRINT);
        given().header("Authorization", "Bearer test-token").contentType("application/json").body(alert).post("/api/v1/alerts").then()
                .statusCode(200);
        JsonPath incident = awaitDiagnosed();

        assertEquals("device", incident.getString("assessment.diagnosis.family"), incident.prettify());
        String cause = incident.getString("assessment.diagnosis.cause");
        assertTrue(cause.startsWith("fail-slow: ml/" + slowRank + " on GPU 5 of " + NODE + " is 2.0× slower than the median of its 3 peers"),
                cause);
        assertTrue(cause.contains("reported by the workload only"), cause);
        List<String> fences = incident.getList("actions.findAll { it.kind == 'cordon-node' || it.kind == 'drain-node' }"
                + ".findAll { it.status == 'SUCCEEDED' }.kind");
        assertTrue(fences.isEmpty(), "nothing fenced on the tenant's series: " + incident.getList("actions"));
        String id = incident.getString("id");
        List<Object> reasons = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=escalation&incident=" + id).then()
                .statusCode(200).extract().jsonPath().getList("items.payload.reasons.flatten()");
        assertTrue(!reasons.isEmpty(), "escalated to a person");
        String summary = given().spec(TestAuth.bearer(TestAuth.VIEWER)).get("/api/v1/audit?kind=escalation&incident=" + id).then()
                .extract().jsonPath().getString("items[0].payload.summary");
        assertTrue(summary.contains(NODE) && summary.contains("GPU 5"), "the escalation names the node and the GPU: " + summary);
    }

    private static JsonPath awaitDiagnosed() throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            JsonPath list = given().queryParam("namespace", "ml").get("/api/v1/incidents").then().statusCode(200).extract().jsonPath();
            for (String id : list.<String>getList("items.id")) {
                String body = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().asString();
                JsonPath one = JsonPath.from(body);
                if (body.contains(FINGERPRINT) && one.get("assessment.diagnosis") != null) return one;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no diagnosed incident for ml/llm-pretrain within 60 s");
    }
}
