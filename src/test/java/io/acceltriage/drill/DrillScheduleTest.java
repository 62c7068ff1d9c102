package io.acceltriage.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import io.acceltriage.policy.Policy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The policy's drill schedule as an operator writes it: parsed, refused with file:line and a reason, and when a drill is due. */
class DrillScheduleTest {

    private static final String HEAD = "apiVersion: acceltriage.io/v1\nkind: Policy\nmetadata: {name: drills}\n";

    private static Policy parse(String drills) {
        return Policy.parse("drills.yaml", (HEAD + drills).getBytes(StandardCharsets.UTF_8));
    }

    private static String refusal(String drills) {
        return assertThrows(DataFiles.InvalidDataFile.class, () -> parse(drills)).getMessage();
    }

    @Test
    void aScheduleNamesBundledDrillsAndHowOftenEachRuns() {
        Policy p = parse("drills:\n  - {name: xid79-training-node, every: 24h}\n  - name: serving-gpu\n    every: 30m\n");
        assertEquals(List.of("xid79-training-node", "serving-gpu"), p.drillsOrEmpty().stream().map(Policy.Drill::name).toList());
        assertEquals(Duration.ofHours(24), p.drillsOrEmpty().get(0).interval());
        assertEquals(Duration.ofMinutes(30), p.drillsOrEmpty().get(1).interval());
        assertTrue(parse("").drillsOrEmpty().isEmpty(), "no key, no drills");
    }

    @Test
    void aWrongEntryIsRefusedAtItsLineWithTheReason() {
        assertEquals("drills.yaml:5: drills[0].name must be one of the drills [xid79-training-node, serving-gpu, device-plugin], got 'xid80'",
                refusal("drills:\n  - {name: xid80, every: 24h}\n"));
        assertEquals("drills.yaml:7: drills[1].every: 'daily' is not a duration; write a number and s, m, h or d, e.g. 10m",
                refusal("drills:\n  - {name: serving-gpu, every: 24h}\n  - name: device-plugin\n    every: daily\n"));
        assertTrue(refusal("drills:\n  - {name: serving-gpu, every: 1m}\n").startsWith("drills.yaml:5: drills[0].every must be at least 10m"));
        assertTrue(refusal("drills:\n  - {name: serving-gpu}\n").startsWith("drills.yaml:5: drills[0].every is required"));
        assertTrue(refusal("drills:\n  - {name: serving-gpu, every: 1h}\n  - {name: serving-gpu, every: 2h}\n")
                .contains("drills[1]: drill 'serving-gpu' is scheduled twice"));
        assertTrue(refusal("drills:\n  - {name: serving-gpu, every: 1h, node: gpu-a100-01}\n").contains("unknown key 'node'"));
    }

    @Test
    void aDrillIsDueWhenItNeverRanOrItsIntervalHasPassed() {
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        assertTrue(DrillSchedule.due(Optional.empty(), Duration.ofHours(24), now));
        assertFalse(DrillSchedule.due(Optional.of(now.minus(Duration.ofHours(23))), Duration.ofHours(24), now));
        assertTrue(DrillSchedule.due(Optional.of(now.minus(Duration.ofHours(24))), Duration.ofHours(24), now));
    }

    @Test
    void everyBundledDrillFileLoadsWithItsFaultsAndStages() {
        DrillCatalog catalog = new DrillCatalog();
        assertEquals(List.of("xid79-training-node", "serving-gpu", "device-plugin"), catalog.names());
        DrillCatalog.Drill xid = catalog.find("xid79-training-node").orElseThrow();
        assertEquals(79, xid.faults().get(0).xid());
        assertEquals(List.of("decide", "mitigate", "verify"), xid.expect());
        assertThrows(DataFiles.InvalidDataFile.class, () -> DrillCatalog.parse("x", "x.yaml",
                "apiVersion: acceltriage.io/v1\nkind: Drill\nfaults: [{kind: xid, node: n, xid: 79}]\nexpect: [repair]\n".getBytes()));
    }
}
