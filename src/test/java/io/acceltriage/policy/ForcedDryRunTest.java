package io.acceltriage.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A shadow drill's incident runs dry whatever the policy allowed; a refusal stays one; a real alert beside it is told. */
class ForcedDryRunTest {

    static final Map<String, String> REAL = Map.of("alertname", "GpuXidDeviceFault", "node", "gpu-h100-04");
    static final Map<String, String> DRILL = Map.of("alertname", "GpuXidDeviceFault", "node", "gpu-h100-04",
            ForcedDryRun.DRILL_LABEL, "xid79-training-node");

    @Test
    void anIncidentWithoutADrillsAlertIsNotForced() {
        assertTrue(ForcedDryRun.of(List.of(REAL)).isEmpty());
        assertTrue(ForcedDryRun.of(List.of(Map.of("alertname", "X", ForcedDryRun.DRILL_LABEL, " "))).isEmpty(), "a blank marker marks nothing");
    }

    @Test
    void allowedAndApprovedActionsRunDryAndSayWhyWhileARefusalStaysARefusal() {
        ForcedDryRun.Forced f = ForcedDryRun.of(List.of(DRILL)).orElseThrow();
        assertFalse(f.realAlertJoined());
        Verdict allowed = ForcedDryRun.apply(Verdict.allow("actions.cordon-node.decision", List.of("confidence 0.97 ≥ 0.80"), false), f);
        assertEquals(Decision.ALLOW, allowed.decision());
        assertTrue(allowed.dryRun());
        assertTrue(allowed.reasons().get(1).startsWith("shadow drill xid79-training-node: the incident runs in dry run"), allowed.toString());
        Verdict approved = ForcedDryRun.apply(Verdict.approve("actions.drain-node.decision", List.of("a person approves")), f);
        assertEquals(Decision.APPROVE, approved.decision());
        assertTrue(approved.dryRun(), "what a person approves later runs dry too: the dry run is stored with the action");
        Verdict denied = Verdict.deny("breaker", "tripped");
        assertEquals(denied, ForcedDryRun.apply(denied, f));
    }

    @Test
    void aRealAlertThatJoinsTheDrillsIncidentIsNoticedAndTheIncidentStaysDry() {
        ForcedDryRun.Forced f = ForcedDryRun.of(List.of(DRILL, REAL)).orElseThrow();
        assertTrue(f.realAlertJoined());
        assertEquals(List.of("xid79-training-node"), f.drills());
    }
}
