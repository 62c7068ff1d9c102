package io.acceltriage.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.policy.Policy;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An incident measured against objectives: met, breached (late or overdue), pending, skipped; and a pool's GPU-hours budget. */
class ObjectivesTest {

    static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    static final Policy.Objective MITIGATE_2M = new Policy.Objective("device-mitigated", "device", null, "mitigate", "2m", null);
    static final Policy.Objective RETURN_4H = new Policy.Objective("returned", null, null, "return-to-service", "4h", null);
    static final Policy.Objective DETECT_1M = new Policy.Objective("detected", null, null, "detect", "1m", null);
    static final Policy.Objective BUDGET = new Policy.Objective("gpu-hours", null, null, null, null, 20.0);

    /** Builder: an incident received at T0 in pool h100-train, nothing else happened. */
    record Timing(String id, String family, String pool, Instant fault, Instant mitigated, Instant returned, Instant resolved,
            int gpus, double gpuHours, Instant received) {
        static Timing device() {
            return new Timing("inc-1", "device", "h100-train", null, null, null, null, 0, 0, T0);
        }

        Timing mitigatedAfter(long s) {
            return new Timing(id, family, pool, fault, T0.plusSeconds(s), returned, resolved, gpus, gpuHours, received);
        }

        Timing resolvedAfter(long s) {
            return new Timing(id, family, pool, fault, mitigated, returned, T0.plusSeconds(s), gpus, gpuHours, received);
        }

        Timing fenced(int g, double hours) {
            return new Timing(id, family, pool, fault, mitigated, returned, resolved, g, hours, received);
        }

        Timing family(String f) {
            return new Timing(id, f, pool, fault, mitigated, returned, resolved, gpus, gpuHours, received);
        }

        Timing as(String otherId, Instant at) {
            return new Timing(otherId, family, pool, fault, mitigated, returned, resolved, gpus, gpuHours, at);
        }

        IncidentTiming build() {
            return new IncidentTiming(id, family, pool, "gpu-h100-03", fault, received, null, mitigated, null, returned, resolved, gpus,
                    gpuHours);
        }
    }

    static ObjectiveCheck.Status status(Policy.Objective o, Timing t, Instant now) {
        List<ObjectiveCheck> c = Objectives.of(List.of(o), t.build(), List.of(t.build()), now);
        assertEquals(1, c.size(), "applies");
        return c.get(0).status();
    }

    @Test
    void aStageWithinItsBoundIsMetAndALateOneBreached() {
        assertEquals(ObjectiveCheck.Status.MET, status(MITIGATE_2M, Timing.device().mitigatedAfter(90), T0.plusSeconds(3600)));
        ObjectiveCheck late = Objectives.stage(MITIGATE_2M, Timing.device().mitigatedAfter(121).build(), T0.plusSeconds(3600));
        assertEquals(ObjectiveCheck.Status.BREACHED, late.status());
        assertEquals(121.0, late.seconds());
        assertEquals(120.0, late.withinSeconds());
    }

    @Test
    void aStageNotReachedIsPendingUntilItsBoundPassesThenBreached() {
        assertEquals(ObjectiveCheck.Status.PENDING, status(MITIGATE_2M, Timing.device(), T0.plusSeconds(60)));
        assertEquals(ObjectiveCheck.Status.BREACHED, status(MITIGATE_2M, Timing.device(), T0.plusSeconds(180)));
        assertEquals(ObjectiveCheck.Status.SKIPPED, status(MITIGATE_2M, Timing.device().resolvedAfter(30), T0.plusSeconds(3600)),
                "resolved before it needed mitigating");
        assertEquals(ObjectiveCheck.Status.BREACHED, status(MITIGATE_2M, Timing.device().resolvedAfter(600), T0.plusSeconds(3600)),
                "resolved unmitigated after the bound had passed");
    }

    @Test
    void anObjectiveSpeaksOnlyOfItsFamilyAndPool() {
        assertTrue(Objectives.of(List.of(MITIGATE_2M), Timing.device().family("application").build(), List.of(), T0).isEmpty());
        Policy.Objective otherPool = new Policy.Objective("a100", null, "a100-serve", "mitigate", "2m", null);
        assertTrue(Objectives.of(List.of(otherPool), Timing.device().build(), List.of(), T0).isEmpty());
    }

    @Test
    void returnToServiceIsOnlyMeasuredWhenGpusWereFencedAndDetectNeedsTheFaultsStart() {
        assertEquals(ObjectiveCheck.Status.SKIPPED, status(RETURN_4H, Timing.device(), T0.plusSeconds(5 * 3600)));
        assertEquals(ObjectiveCheck.Status.BREACHED, status(RETURN_4H, Timing.device().fenced(8, 5), T0.plusSeconds(5 * 3600)));
        ObjectiveCheck detect = Objectives.stage(DETECT_1M, Timing.device().build(), T0.plusSeconds(600));
        assertEquals(ObjectiveCheck.Status.SKIPPED, detect.status());
        assertNull(detect.seconds());
    }

    @Test
    void aPoolsBudgetCountsTheWeekBeforeEachIncidentAndBreachesOnlyIncidentsThatLostGpuHours() {
        Timing eightDaysAgo = Timing.device().fenced(8, 16).resolvedAfter(1).as("old", T0.minusSeconds(8 * 86400));
        Timing yesterday = Timing.device().fenced(8, 16).resolvedAfter(1).as("yesterday", T0.minusSeconds(86400));
        Timing now = Timing.device().fenced(8, 8).resolvedAfter(3600);
        List<IncidentTiming> pool = List.of(eightDaysAgo.build(), yesterday.build(), now.build());
        ObjectiveCheck c = Objectives.budget(BUDGET, now.build(), pool);
        assertEquals(ObjectiveCheck.Status.BREACHED, c.status(), "16 + 8 > 20; the one of 8 days ago is out of the window");
        assertEquals(24.0, c.gpuHoursLost());
        assertEquals(ObjectiveCheck.Status.MET, Objectives.budget(BUDGET, yesterday.build(), pool).status(), "16 alone is within 20");
        assertEquals(ObjectiveCheck.Status.MET, Objectives.budget(BUDGET, Timing.device().resolvedAfter(5).build(), pool).status(),
                "an incident that fenced nothing did not spend the budget");

        List<Reliability.Budget> b = Reliability.budgets(List.of(BUDGET), pool, null, T0.plusSeconds(60));
        assertEquals(1, b.size());
        assertEquals("h100-train", b.get(0).pool());
        assertEquals(24.0, b.get(0).gpuHoursLost());
        assertEquals(ObjectiveCheck.Status.BREACHED, b.get(0).status());
    }
}
