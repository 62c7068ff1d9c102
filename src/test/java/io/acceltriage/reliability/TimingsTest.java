package io.acceltriage.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.StoredAlert;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An incident's clock and cost come from what it stored, one stage each. */
class TimingsTest {

    static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    static final String NODE = "gpu-h100-03";
    /** The evidence as triage stores it: the node's capacity fact names its pool and its 8 GPUs. */
    static final String ASSESSMENT = "{\"evidence\":{\"items\":[{\"id\":\"E1\",\"source\":\"CLUSTER\",\"summary\":\"capacity\","
            + "\"fact\":{\"type\":\"capacity\",\"node\":\"" + NODE + "\",\"pool\":\"h100-train\",\"resource\":\"nvidia.com/gpu\","
            + "\"capacity\":8,\"allocatable\":7}}]},\"diagnosis\":{\"family\":\"DEVICE\",\"evidenceIds\":[\"E1\"]}}";

    static Incident incident(Instant resolvedAt) {
        return new Incident("inc-1", Subject.node(NODE), NODE, resolvedAt == null ? IncidentState.MITIGATED : IncidentState.RESOLVED,
                "device", 0.97, 1, T0.plusSeconds(5), T0.plusSeconds(9), resolvedAt, "summary", ASSESSMENT);
    }

    static StoredAlert alert(Instant startsAt, Instant receivedAt) {
        return new StoredAlert(1, new Alert("fp", "gk", AlertStatus.FIRING, Map.of("alertname", "GpuXidError", "node", NODE), Map.of(),
                startsAt, null, null), receivedAt, "inc-1");
    }

    static AuditRecord record(AuditKind kind, Instant at) {
        return new AuditRecord(1, at, "inc-1", kind, "agent", JsonNodeFactory.instance.objectNode(), "p", "h");
    }

    static ActionRecord cordon(ActionStatus status, Instant at) {
        return new ActionRecord("act-1", "inc-1", ActionKind.CORDON_NODE, NODE, Decision.ALLOW, status, false, "", at, at, null);
    }

    @Test
    void eachStageIsTimedFromTheAlertsReceiptAndDetectionFromTheFaultsStart() {
        IncidentTiming t = Timings.of(incident(T0.plusSeconds(3600)), List.of(alert(T0.minusSeconds(30), T0)),
                List.of(record(AuditKind.DIAGNOSIS, T0.plusMillis(800)), record(AuditKind.VERDICT, T0.plusMillis(900)),
                        record(AuditKind.ACTION_FINISHED, T0.plusSeconds(2)), record(AuditKind.VERIFICATION, T0.plusSeconds(4))),
                List.of(), T0.plusSeconds(7200));
        assertEquals(Duration.ofSeconds(30), t.toDetect());
        assertEquals(Duration.ofMillis(900), t.toDecide(), "the first verdict is the decision");
        assertEquals(Duration.ofSeconds(2), t.toMitigate());
        assertEquals(Duration.ofSeconds(4), t.toVerify());
        assertEquals(Duration.ofSeconds(3600), t.toResolve());
    }

    static AuditRecord finished(Instant at, boolean dryRun) {
        var payload = JsonNodeFactory.instance.objectNode().put("action", "act-1").put("dryRun", dryRun);
        return new AuditRecord(1, at, "inc-1", AuditKind.ACTION_FINISHED, "agent", payload, "p", "h");
    }

    @Test
    void aDryRunMitigatesOnlyAShadowDrillsIncidentNotARealOneUnderAPolicyWideDryRun() {
        List<AuditRecord> trail = List.of(record(AuditKind.VERDICT, T0.plusSeconds(1)), finished(T0.plusSeconds(2), true),
                finished(T0.plusSeconds(5), false));
        assertEquals(Duration.ofSeconds(5), Timings.of(incident(null), List.of(alert(T0, T0)), trail, List.of(), T0.plusSeconds(60))
                .toMitigate(), "the dry run changed nothing; the real action 5 s after mitigated");
        assertNull(Timings.of(incident(null), List.of(alert(T0, T0)), trail.subList(0, 2), List.of(), T0.plusSeconds(60)).toMitigate(),
                "a real incident whose only action ran dry (policy-wide dryRun: true) is not mitigated");
        StoredAlert drill = new StoredAlert(1, new Alert("fp", "gk", AlertStatus.FIRING,
                Map.of("alertname", "GpuXidError", "node", NODE, io.acceltriage.policy.ForcedDryRun.DRILL_LABEL, "xid79-training-node"),
                Map.of(), T0, null, null), T0, "inc-1");
        assertEquals(Duration.ofSeconds(2), Timings.of(incident(null), List.of(drill), trail.subList(0, 2), List.of(), T0.plusSeconds(60))
                .toMitigate(), "a shadow drill's incident counts what would have mitigated it");
    }

    @Test
    void aStageThatDidNotHappenIsUnknownNotZero() {
        IncidentTiming t = Timings.of(incident(null), List.of(alert(T0, T0)), List.of(record(AuditKind.DIAGNOSIS, T0.plusSeconds(1))),
                List.of(), T0.plusSeconds(60));
        assertEquals(Duration.ofSeconds(1), t.toDecide(), "with nothing proposed the diagnosis is the decision");
        assertNull(t.toMitigate());
        assertNull(t.toResolve());
    }

    @Test
    void aFencedNodesGpusCountFromTheCordonUntilTheIncidentResolved() {
        IncidentTiming t = Timings.of(incident(T0.plusSeconds(2 * 3600 + 10)), List.of(alert(T0, T0)), List.of(),
                List.of(cordon(ActionStatus.SUCCEEDED, T0.plusSeconds(10))), T0.plusSeconds(9 * 3600));
        assertEquals(8, t.gpusFenced());
        assertEquals(16.0, t.gpuHoursLost(), 0.001, "8 GPUs for 2 hours");
        assertEquals("h100-train", t.pool());
    }

    @Test
    void anUndoneCordonStopsTheClockAndAFailedOrDryRunOneCostsNothing() {
        ActionRecord undone = new ActionRecord("act-1", "inc-1", ActionKind.CORDON_NODE, NODE, Decision.ALLOW, ActionStatus.UNDONE, false,
                "", T0, T0.plusSeconds(1800), null);
        assertEquals(4.0, Timings.of(incident(null), List.of(alert(T0, T0)), List.of(), List.of(undone), T0.plusSeconds(7200))
                .gpuHoursLost(), 0.001, "8 GPUs for the half hour until the undo, not until now");
        IncidentTiming failed = Timings.of(incident(null), List.of(alert(T0, T0)), List.of(),
                List.of(cordon(ActionStatus.FAILED, T0)), T0.plusSeconds(7200));
        assertEquals(0, failed.gpusFenced());
        assertEquals(0.0, failed.gpuHoursLost(), 0.001);
    }

    @Test
    void percentilesAreNearestRankOverTheIncidentsWhereTheStageHappened() {
        List<IncidentTiming> ts = List.of(1, 2, 3, 4, 10).stream().map(s -> new IncidentTiming("i" + s, "device", null, null, null, T0,
                T0.plusSeconds(s), null, null, null, null, 0, 0)).toList();
        Reliability.Stat s = Reliability.stat(ts, IncidentTiming::toDecide);
        assertEquals(5, s.count());
        assertEquals(3.0, s.p50Seconds());
        assertEquals(10.0, s.p90Seconds());
        assertEquals(10.0, s.maxSeconds());
        assertEquals(0, Reliability.stat(ts, IncidentTiming::toMitigate).count());
    }

    /** The gang on the node as triage stored it: 32 GPUs, 30 min since its last checkpoint = 16 GPU-hours a restart now loses. */
    static String withGang(boolean atCheckpoint) {
        return ASSESSMENT.substring(0, ASSESSMENT.length() - 1) + ",\"workLost\":[{\"workload\":\"ml/llama-pretrain\",\"kind\":\"JobSet\","
                + "\"secondsSinceCheckpoint\":1800,\"gpus\":32,\"gpuHours\":16.0,\"source\":\"metric\",\"atCheckpoint\":" + atCheckpoint + "}]}";
    }

    static ActionRecord restart(String id, boolean dryRun) {
        return new ActionRecord(id, "inc-1", ActionKind.RESTART_GROUP, "ml/llama-pretrain", Decision.ALLOW,
                dryRun ? ActionStatus.DRY_RUN : ActionStatus.SUCCEEDED, dryRun, "", T0.plusSeconds(20), T0.plusSeconds(20), null);
    }

    static AuditRecord measured(double trainingSecondsLost) {
        ServiceImpact impact = new ServiceImpact(ServiceImpact.Status.MEASURED, null, T0, 900.0,
                List.of(new ServiceImpact.Reading("ml", "training_step_time", "step-time", 1.0, 1.5)), trainingSecondsLost, 1800.0);
        return new AuditRecord(2, T0.plusSeconds(1000), "inc-1", AuditKind.IMPACT_MEASURED, "agent",
                io.acceltriage.store.Json.MAPPER.valueToTree(impact), "p", "h");
    }

    @Test
    void fencedWorkLostAndSlowedAreCountedApartAndOnceInTheTotal() {
        Incident i = new Incident("inc-1", Subject.node(NODE), NODE, IncidentState.RESOLVED, "device", 0.97, 1, T0.plusSeconds(5),
                T0.plusSeconds(9), T0.plusSeconds(2 * 3600 + 10), "summary", withGang(false));
        IncidentTiming t = Timings.of(i, List.of(alert(T0, T0)), List.of(measured(300)),
                List.of(cordon(ActionStatus.SUCCEEDED, T0.plusSeconds(10)), restart("act-2", false)), T0.plusSeconds(9 * 3600));
        assertEquals(16.0, t.lost().fenced(), 0.001, "8 GPUs fenced for 2 hours");
        assertEquals(16.0, t.lost().workLost(), 0.001, "the restart threw away 30 min × 32 GPUs");
        assertEquals(2.667, t.lost().slowed(), 0.001, "300 s of training time lost × 32 GPUs");
        assertEquals(34.667, t.gpuHoursLost(), 0.001, "the total is the three kinds, each once");
        // The same loss read again with its impact attached afresh (as the report does) is not counted twice.
        assertEquals(34.667, t.withImpact(t.impact()).gpuHoursLost(), 0.001);
    }

    @Test
    void aRestartThatWaitedForTheCheckpointOrRanDryLosesNoWorkAndNoGangNoSlowdown() {
        Incident waited = new Incident("inc-1", Subject.node(NODE), NODE, IncidentState.RESOLVED, "device", 0.97, 1, T0.plusSeconds(5),
                T0.plusSeconds(9), T0.plusSeconds(60), "summary", withGang(true));
        assertEquals(0.0, Timings.of(waited, List.of(alert(T0, T0)), List.of(), List.of(restart("act-2", false)), T0.plusSeconds(90))
                .lost().workLost());
        Incident dry = new Incident("inc-1", Subject.node(NODE), NODE, IncidentState.RESOLVED, "device", 0.97, 1, T0.plusSeconds(5),
                T0.plusSeconds(9), T0.plusSeconds(60), "summary", withGang(false));
        assertEquals(0.0, Timings.of(dry, List.of(alert(T0, T0)), List.of(), List.of(restart("act-2", true)), T0.plusSeconds(90))
                .lost().workLost());
        IncidentTiming noGang = Timings.of(incident(T0.plusSeconds(60)), List.of(alert(T0, T0)), List.of(measured(300)), List.of(),
                T0.plusSeconds(90));
        assertEquals(0.0, noGang.lost().slowed(), "a slowdown with no gang's GPUs to multiply is not a GPU-hour figure");
        assertEquals(0.0, noGang.gpuHoursLost());
    }
}
