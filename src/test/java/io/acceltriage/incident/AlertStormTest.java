package io.acceltriage.incident;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.store.Database;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bad driver rollout over real HTTP: 32 nodes lose their GPUs right after a new revision of the
 * driver DaemonSet, and Alertmanager delivers 320 alerts in batches. They must become a handful of
 * incidents that account for every alert, triaged as one fleet fault, and no node may be fenced: the
 * only proposal is pausing the driver's rollout, for a person to approve.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Admin.class)
class AlertStormTest {


    private static final int NODES = 32;
    private static final int ALERTS_PER_NODE = 10;

    @Inject
    KubernetesClient client;

    @Inject
    Database database;

    @AfterEach
    void cleanUp() {
        for (int i = 1; i <= NODES; i++) client.nodes().withName(node(i)).delete();
        client.apps().controllerRevisions().inNamespace("gpu-operator").withName("storm-driver-old").delete();
        client.apps().controllerRevisions().inNamespace("gpu-operator").withName("storm-driver-new").delete();
    }

    @Test
    void aDriverRolloutStormBecomesAHandfulOfIncidentsThatCountEveryAlertAndCordonsNothing() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        for (int i = 1; i <= NODES; i++) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node(i))
                    .addToLabels(Map.of("nvidia.com/gpu.present", "true", "nvidia.com/gpu.count", "8",
                            "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "acceltriage.io/pool", "storm-h100"))
                    .endMetadata().withNewSpec().endSpec().withNewStatus()
                    .addToCapacity("nvidia.com/gpu", new Quantity("0")).addToAllocatable("nvidia.com/gpu", new Quantity("0"))
                    .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
        }
        revision("storm-driver-old", 1, now.minus(Duration.ofDays(30)), "nvcr.io/nvidia/driver:550.127.05");
        revision("storm-driver-new", 2, now.minus(Duration.ofMinutes(5)), "nvcr.io/nvidia/driver:570.172.08");
        now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

        String groupKey = "{}:{alertname=\"GpuNodeCapacityLost\",storm=\"" + UUID.randomUUID() + "\"}";
        int sent = 0;
        for (int batch = 0; batch < ALERTS_PER_NODE; batch++) {
            List<Map<String, Object>> alerts = new ArrayList<>();
            for (int i = 1; i <= NODES; i++) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("status", "firing");
                a.put("labels", Map.of("alertname", "GpuNodeCapacityLost", "node", node(i), "gpu", String.valueOf(batch % 8),
                        "check", "c" + batch, "severity", "critical"));
                a.put("annotations", Map.of("summary", node(i) + " advertises 0 of 8 GPUs"));
                a.put("startsAt", now.toString());
                a.put("endsAt", "0001-01-01T00:00:00Z");
                a.put("generatorURL", "http://prometheus/graph");
                a.put("fingerprint", UUID.randomUUID().toString().replace("-", "").substring(0, 16));
                alerts.add(a);
            }
            Map<String, Object> payload = Map.of("version", "4", "groupKey", groupKey, "status", "firing", "receiver", "acceltriage",
                    "groupLabels", Map.of("alertname", "GpuNodeCapacityLost"), "commonLabels", Map.of(), "commonAnnotations", Map.of(),
                    "externalURL", "http://alertmanager:9093", "truncatedAlerts", 0, "alerts", alerts);
            given().header("Authorization", "Bearer test-token").contentType("application/json").body(payload)
                    .post("/api/v1/alerts").then().statusCode(200).body("accepted", equalTo(NODES));
            sent += NODES;
        }
        assertTrue(sent >= 300);

        Map<String, Integer> incidents = awaitFiled(groupKey, sent);
        assertTrue(incidents.size() <= 3, "a storm of " + sent + " alerts opened " + incidents.size() + " incidents");
        int counted = 0;
        for (String id : incidents.keySet()) {
            counted += given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath().getInt("alertCount");
        }
        assertEquals(sent, counted, "the incidents' alert counts add up to the alerts sent");

        String fleet = incidents.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        JsonPath triaged = awaitTriaged(fleet);
        assertEquals("alert:fleet:GpuNodeCapacityLost", triaged.getString("subject"));
        assertEquals("infrastructure", triaged.getString("family"));
        // The one thing a fleet incident proposes is holding the rollout it follows, and a person approves that.
        assertEquals("awaiting_approval", triaged.getString("state"));
        assertTrue(triaged.getString("summary").contains("nvidia-driver-daemonset revision 2"), triaged.getString("summary"));
        assertEquals(List.of("pause-rollout:gpu-operator/nvidia-driver-daemonset"),
                triaged.getList("assessment.judgements.proposal").stream().map(p -> ((Map<?, ?>) p).get("kind") + ":" + ((Map<?, ?>) p).get("target")).toList(),
                "a fleet incident proposes no node actions");
        for (String id : incidents.keySet()) {
            List<String> kinds = given().get("/api/v1/incidents/" + id).then().extract().jsonPath().getList("actions.kind");
            assertTrue(kinds == null || kinds.stream().allMatch("pause-rollout"::equals), id + " acted on a node: " + kinds);
        }
        for (int i = 1; i <= NODES; i++) {
            Node n = client.nodes().withName(node(i)).get();
            assertNotEquals(Boolean.TRUE, n.getSpec().getUnschedulable(), node(i) + " was cordoned by the storm");
        }
    }

    private void revision(String name, long number, Instant created, String image) {
        client.apps().controllerRevisions().inNamespace("gpu-operator").resource(new ControllerRevisionBuilder().withNewMetadata()
                .withName(name).withNamespace("gpu-operator").withCreationTimestamp(created.toString())
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("nvidia-driver-daemonset")
                .withUid("storm-ds").withController(true).endOwnerReference().endMetadata()
                .withRevision(number).withData(Map.of("spec", Map.of("template", Map.of("spec",
                        Map.of("containers", List.of(Map.of("name", "nvidia-driver-ctr", "image", image)))))))
                .build()).create();
    }

    /** Incident id → alerts of the group filed under it, once every alert sent is filed. */
    private Map<String, Integer> awaitFiled(String groupKey, int sent) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (true) {
            Map<String, Integer> byIncident = database.read(c -> {
                Map<String, Integer> out = new LinkedHashMap<>();
                try (var ps = c.prepareStatement("select incident_id, count(*) from alerts where group_key = ?"
                        + " and incident_id is not null group by incident_id")) {
                    ps.setString(1, groupKey);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) out.put(rs.getString(1), rs.getInt(2));
                    }
                }
                return out;
            });
            if (byIncident.values().stream().mapToInt(Integer::intValue).sum() == sent) return byIncident;
            if (Instant.now().isAfter(deadline)) throw new AssertionError("filed so far: " + byIncident);
            sleep();
        }
    }

    private static JsonPath awaitTriaged(String id) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (true) {
            JsonPath incident = given().get("/api/v1/incidents/" + id).then().statusCode(200).extract().jsonPath();
            if (!"triaging".equals(incident.getString("state"))) return incident;
            if (Instant.now().isAfter(deadline)) throw new AssertionError(id + " still triaging");
            sleep();
        }
    }

    private static String node(int i) {
        return String.format("gpu-storm-%02d", i);
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
