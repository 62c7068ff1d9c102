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
        DrillRunner runner = new DrillRunner("kubeconfig", new DrillCatalog(), null, null, null, null, null, null, null, new ShadowOverlay(), null);
        String why = assertThrows(DrillRunner.Refused.class, () -> runner.run("serving-gpu", "someone", DrillResult.SANDBOX)).getMessage();
        assertTrue(why.contains("only a shadow drill runs") && why.contains("drill serving-gpu --shadow")
                && why.contains("\"mode\": \"shadow\""), why);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> runner.run("xid80", "someone")).getMessage()
                .contains("[xid79-training-node, serving-gpu, device-plugin]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> runner.run("serving-gpu", "someone", "chaos")).getMessage()
                .contains("sandbox or shadow"));
    }

    @Test
    void anOperatorsDrillFolderAddsDrillsAndReplacesABundledOneOfTheSameName(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Files.writeString(dir.resolve("xid79-rack-a.yaml"), """
                apiVersion: acceltriage.io/v1
                kind: Drill
                description: XID 79 on a node of rack A
                faults: [{kind: xid, node: gpu-node-17, gpu: 2, xid: 79}]
                expect: [decide, mitigate]
                timeout: 60s
                alert:
                  labels: {alertname: GpuXidDeviceFault, node: gpu-node-17, gpu: "2", xid: "79"}
                """);
        java.nio.file.Files.writeString(dir.resolve("device-plugin.yaml"), """
                apiVersion: acceltriage.io/v1
                kind: Drill
                faults: [{kind: device-plugin-crash, node: gpu-node-18}]
                expect: [decide]
                """);
        DrillCatalog catalog = new DrillCatalog(java.util.Optional.of(dir.toString()));
        assertEquals(List.of("xid79-training-node", "serving-gpu", "device-plugin", "xid79-rack-a"), catalog.names());
        assertEquals("gpu-node-17", catalog.find("xid79-rack-a").orElseThrow().alert().labels().get("node"));
        assertEquals("gpu-node-18", catalog.find("device-plugin").orElseThrow().faults().get(0).node(), "the operator's replaces the bundled");
    }

    @Test
    void aBadOperatorDrillFileOrFolderStopsTheStartWithOneLineNamingTheFileAndLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path bad = dir.resolve("xid79-rack-a.yaml");
        java.nio.file.Files.writeString(bad, """
                apiVersion: acceltriage.io/v1
                kind: Drill
                faults: [{kind: xid, node: gpu-node-17, gpu: 2, xid: 79}]
                expect: [decide, mend]
                """);
        String why = assertThrows(io.acceltriage.config.DataFiles.InvalidDataFile.class,
                () -> new DrillCatalog(java.util.Optional.of(dir.toString()))).getMessage();
        assertEquals(bad + ":4: expect must list stages of " + io.acceltriage.policy.Policy.OBJECTIVE_STAGES + ", got [decide, mend]", why);
        assertTrue(!why.contains("\n"), "one line");
        java.nio.file.Files.writeString(bad, """
                apiVersion: acceltriage.io/v1
                kind: Drill
                faults: [{kind: xid, node: gpu-node-17, gpu: 2, xid: 79}]
                expect: [decide]
                alert:
                  labels: {alertname: X, node: gpu-node-17, acceltriage_drill_run: abc}
                """);
        why = assertThrows(io.acceltriage.config.DataFiles.InvalidDataFile.class,
                () -> new DrillCatalog(java.util.Optional.of(dir.toString()))).getMessage();
        assertEquals(bad + ":6: alert.labels.acceltriage_drill_run is set by the drill itself; remove it", why);
        why = assertThrows(io.acceltriage.config.DataFiles.InvalidDataFile.class,
                () -> new DrillCatalog(java.util.Optional.of(dir.resolve("missing").toString()))).getMessage();
        assertTrue(why.startsWith(dir.resolve("missing") + ": ACCELTRIAGE_DRILLS_DIR (acceltriage.drills.dir) is not a folder"), why);
    }

    @Test
    void aDrillMovedToAnotherNodeNamesItInItsFaultsAlertAndProse() {
        DrillCatalog.Drill d = DrillCatalog.on(new DrillCatalog().find("xid79-training-node").orElseThrow(), "gpu-node-17");
        assertEquals("gpu-node-17", d.faults().get(0).node());
        assertEquals(3, d.faults().get(0).gpu());
        assertEquals("gpu-node-17", d.alert().labels().get("node"));
        assertTrue(d.alert().annotations().get("summary").contains("gpu-node-17") && !d.alert().annotations().get("summary").contains("gpu-h100-04"),
                d.alert().annotations().toString());
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
