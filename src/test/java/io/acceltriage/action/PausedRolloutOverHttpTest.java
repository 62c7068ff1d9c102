package io.acceltriage.action;

import io.acceltriage.testing.AwaitedActions;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.FiredAlert;
import io.acceltriage.sandbox.Sandbox;
import io.acceltriage.testing.FreshFleet;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A bad device-plugin rollout through the running service: the sandbox rolls the plugin's new
 * revision onto its 22 NVIDIA nodes one after the other and each one's plugin crash-loops;
 * Alertmanager delivers the 22 alerts as one group. The fleet incident proposes pausing that
 * rollout and nothing on a node; the approver approves, the DaemonSet is held at OnDelete, and undo
 * gives it back its RollingUpdate.
 */
@QuarkusTest
@org.junit.jupiter.api.extension.ExtendWith(io.acceltriage.TestAuth.Approver.class)
class PausedRolloutOverHttpTest {

    static final String PLUGIN = "gpu-operator/nvidia-device-plugin-daemonset";
    /** Every NVIDIA node of the sandbox: more than the test profile's storm threshold of 20. */
    static final List<String> GPU_NODES = java.util.stream.Stream.concat(
            java.util.stream.IntStream.rangeClosed(1, 12).mapToObj(i -> String.format("gpu-h100-%02d", i)),
            java.util.stream.IntStream.rangeClosed(1, 10).mapToObj(i -> String.format("gpu-a100-%02d", i))).toList();

    @Inject
    Sandbox sandbox;

    @Inject
    io.acceltriage.policy.Breaker breaker;

    @Inject
    io.acceltriage.store.Database database;

    @Test
    void aStormAfterTheDevicePluginRolloutPausesItOnApprovalAndUndoResumesIt() {
        FreshFleet.prepare(database, breaker);
        try {
            List<FiredAlert> alerts = new ArrayList<>();
            for (String node : GPU_NODES) {
                alerts.add(sandbox.inject(new Fault("device-plugin-rollout", node, null, null, null)));
            }
            given().header("Authorization", "Bearer test-token").contentType("application/json")
                    .body(Map.of("version", "4", "groupKey", "{}:{alertname=\"GpuDevicePluginUnavailable\",rollout=\"" + UUID.randomUUID() + "\"}",
                            "status", "firing", "receiver", "acceltriage", "groupLabels", Map.of("alertname", "GpuDevicePluginUnavailable"),
                            "commonLabels", Map.of(), "commonAnnotations", Map.of(), "externalURL", "http://alertmanager:9093",
                            "truncatedAlerts", 0, "alerts", alerts))
                    .post("/api/v1/alerts").then().statusCode(200);

            Map<String, Object> pause = AwaitedActions.await("pause-rollout", PLUGIN, "awaiting_approval");
            JsonPath incident = given().get("/api/v1/incidents/" + pause.get("incident")).then().statusCode(200).extract().jsonPath();
            assertEquals("alert:fleet:GpuDevicePluginUnavailable", incident.getString("subject"));
            assertEquals("infrastructure", incident.getString("family"));
            assertTrue(incident.getString("summary").contains("nvidia-device-plugin-daemonset revision 2"), incident.getString("summary"));
            assertEquals(List.of("pause-rollout"), incident.getList("assessment.judgements.proposal.kind"),
                    "a fleet incident proposes nothing on a node");
            assertEquals("RollingUpdate", plugin().getSpec().getUpdateStrategy().getType(), "nothing changes before the approval");

            JsonPath approved = given().contentType("application/json").body(Map.of("reason", "hold v0.18.0, CDI breaks the plugin"))
                    .post("/api/v1/actions/" + pause.get("id") + "/approve").then().statusCode(200).extract().jsonPath();
            assertEquals("succeeded", approved.getString("status"), approved.getString("message"));
            assertEquals("OnDelete", plugin().getSpec().getUpdateStrategy().getType(), "the rollout goes no further");

            JsonPath undone = given().contentType("application/json").body(Map.of("reason", "v0.18.1 fixes CDI"))
                    .post("/api/v1/actions/" + pause.get("id") + "/undo").then().statusCode(200).extract().jsonPath();
            assertEquals("undone", undone.getString("status"), undone.prettify());
            assertEquals("RollingUpdate", plugin().getSpec().getUpdateStrategy().getType(), "the rollout may go on");
        } finally {
            given().post("/api/v1/sandbox/reset").then().statusCode(200);
            forgetIncidents();
        }
    }

    private DaemonSet plugin() {
        return sandbox.client().apps().daemonSets().inNamespace("gpu-operator").withName("nvidia-device-plugin-daemonset").get();
    }

    /** Other tests of the run look incidents up by node and subject: this storm's are forgotten (the audit keeps them). */
    private void forgetIncidents() {
        database.inTransaction(c -> {
            for (String table : List.of("alerts", "incidents")) {
                String column = table.equals("alerts") ? "incident_id" : "id";
                try (var ps = c.prepareStatement("delete from " + table + " where " + column + " in (select id from incidents where node like ?"
                        + " or subject_key like ?)")) {
                    ps.setString(1, "gpu-%");
                    ps.setString(2, "%fleet:GpuDevicePluginUnavailable%");
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }
}
