package io.acceltriage.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.reliability.IncidentTiming;
import io.acceltriage.reliability.ObjectiveCheck;
import io.acceltriage.reliability.Reliability;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a drill refuses before it injects anything, and how its table reads an incident's timing. */
class DrillRunnerTest {

    @Test
    void againstARealClusterASandboxDrillIsRefusedSayingHowToRunItInShadowAndNothingIsTouched() {
        // No sandbox, store or audit: a refusal must come before any of them is used.
        DrillRunner runner = new DrillRunner("kubeconfig", new DrillCatalog(), null, null, null, null, null, null, null, new ShadowOverlay());
        String why = assertThrows(DrillRunner.Refused.class, () -> runner.run("serving-gpu", "someone", DrillResult.SANDBOX)).getMessage();
        assertTrue(why.contains("only a shadow drill runs") && why.contains("drill serving-gpu --shadow")
                && why.contains("\"mode\": \"shadow\""), why);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> runner.run("xid80", "someone")).getMessage()
                .contains("[xid79-training-node, serving-gpu, device-plugin]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> runner.run("serving-gpu", "someone", "chaos")).getMessage()
                .contains("sandbox or shadow"));
    }

    @Test
    void aStageIsMetBreachedReachedOrMissed() {
        Instant t0 = Instant.parse("2026-12-01T12:00:00Z");
        IncidentTiming t = new IncidentTiming("inc-1", "device", "h100-train", "gpu-h100-04", t0, t0, t0.plusSeconds(2), t0.plusSeconds(3),
                null, null, null, 8, 0);
        List<ObjectiveCheck> checks = List.of(
                new ObjectiveCheck("decided", "decide", 60.0, null, ObjectiveCheck.Status.MET, 2.0, null),
                new ObjectiveCheck("device-mitigated", "mitigate", 0.001, null, ObjectiveCheck.Status.BREACHED, 3.0, null));
        List<DrillResult.Stage> rows = DrillRunner.table(List.of("decide", "mitigate", "verify"), new Reliability.IncidentReport(t, checks));
        assertEquals(List.of("met", "breached", "missed"), rows.stream().map(DrillResult.Stage::status).toList());
        assertEquals(3.0, rows.get(1).tookSeconds());
        assertEquals(null, rows.get(2).tookSeconds(), "verify never happened");
    }
}
