package io.acceltriage.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Policy files: the shipped ones load, a bad one is refused with file, line and reason, reloads keep the last good one. */
class PolicyFileTest {

    @TempDir
    Path dir;

    @Test
    void theShippedPoliciesLoad() {
        for (String f : List.of("policies/default.yaml", "policies/strict.yaml", "policies/training.yaml")) {
            Policy p = Policy.load(f);
            assertTrue(p.name() != null && !p.name().isBlank(), f);
        }
        Policy strict = Policy.load("policies/strict.yaml");
        for (ActionKind k : ActionKind.values()) {
            assertEquals(Decision.APPROVE, strict.rule(k).decision(), "strict: " + k);
        }
    }

    private static String refusal(String yaml) {
        return assertThrows(DataFiles.InvalidDataFile.class,
                () -> Policy.parse("bad.yaml", yaml.getBytes(StandardCharsets.UTF_8))).getMessage();
    }

    @Test
    void aConfidenceOutOfRangeNamesItsLine() {
        String msg = refusal("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                actions:
                  cordon-node: {decision: allow}
                  restart-pod:
                    decision: allow
                    minConfidence: 7
                """);
        assertEquals("bad.yaml:7: actions.restart-pod.minConfidence must be between 0 and 1, got 7.0", msg);
    }

    @Test
    void anUnknownKeyNamesItsLine() {
        String msg = refusal("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                limits:
                  maxCordonedShare: 0.2
                """);
        assertTrue(msg.startsWith("bad.yaml:4: unknown key 'maxCordonedShare'"), msg);
    }

    @Test
    void aBadDurationAndABadBudgetAreRefused() {
        assertTrue(refusal("apiVersion: acceltriage.io/v1\nkind: Policy\nbreaker:\n  window: ten minutes\n")
                .startsWith("bad.yaml:4: breaker.window: 'ten minutes' is not a duration"));
        assertTrue(refusal("apiVersion: acceltriage.io/v1\nkind: Policy\nbudgets:\n  - {action: reboot, max: 1, window: 1h}\n")
                .startsWith("bad.yaml:4: budgets[0].action must name an action"));
    }

    @Test
    void theSilenceBoundIsOptionalAndStrict() {
        String head = "apiVersion: acceltriage.io/v1\nkind: Policy\n";
        assertEquals(java.time.Duration.ofHours(4), Policy.parse("ok.yaml", head.getBytes(StandardCharsets.UTF_8)).silenceMaxDuration());
        assertEquals(java.time.Duration.ofMinutes(90), Policy.parse("ok.yaml", (head + "silences: {maxDuration: 90m}\n")
                .getBytes(StandardCharsets.UTF_8)).silenceMaxDuration());
        assertEquals("bad.yaml:4: silences.maxDuration must be more than 0 and at most 7d (longer silences belong in Alertmanager), got 8d",
                refusal(head + "silences:\n  maxDuration: 8d\n"));
        assertTrue(refusal(head + "silences:\n  maxDuration: 0s\n").contains("must be more than 0"));
        assertTrue(refusal(head + "silences:\n  maxDuration: soon\n").contains("is not a duration"));
        assertTrue(refusal(head + "silences: {}\n").contains("silences.maxDuration is required"));
        assertTrue(refusal(head + "silences: {maxDuraton: 2h}\n").contains("unknown key 'maxDuraton'"));
    }

    @Test
    void theCheckpointKeysAreCheckedWithTheirLines() {
        Policy ok = Policy.parse("ok.yaml", "apiVersion: acceltriage.io/v1\nkind: Policy\ncheckpoints:\n  annotation: example.com/ckpt\n  tool: training_last_checkpoint\n  maxWait: 10m\n"
                .getBytes(StandardCharsets.UTF_8));
        assertEquals("example.com/ckpt", ok.checkpointAnnotation());
        assertEquals(java.time.Duration.ofMinutes(10), ok.checkpointMaxWait());
        assertEquals(Policy.DEFAULT_CHECKPOINT_ANNOTATION, Policy.parse("d.yaml", "apiVersion: acceltriage.io/v1\nkind: Policy\n"
                .getBytes(StandardCharsets.UTF_8)).checkpointAnnotation());
        assertEquals("bad.yaml:4: checkpoints.annotation: 'not a key!' is not an annotation key (e.g. acceltriage.io/last-checkpoint)",
                refusal("apiVersion: acceltriage.io/v1\nkind: Policy\ncheckpoints:\n  annotation: 'not a key!'\n"));
        assertEquals("bad.yaml:5: checkpoints.maxWait must be more than 0 and at most 24h (a degraded device is taken out within a day), got 3d",
                refusal("apiVersion: acceltriage.io/v1\nkind: Policy\ncheckpoints:\n  tool: training_last_checkpoint\n  maxWait: 3d\n"));
        assertTrue(refusal("apiVersion: acceltriage.io/v1\nkind: Policy\ncheckpoints:\n  maxWait: soon\n")
                .startsWith("bad.yaml:4: checkpoints.maxWait: 'soon' is not a duration"));
        assertTrue(refusal("apiVersion: acceltriage.io/v1\nkind: Policy\ncheckpoints:\n  every: 1h\n")
                .startsWith("bad.yaml:4: unknown key 'every'"));
    }

    @Test
    void aWrongApiVersionIsRefused() {
        assertTrue(refusal("apiVersion: v1\nkind: Policy\n").startsWith("bad.yaml:1: 'v1' is not a policy apiVersion"));
    }

    @Test
    void aBadReloadKeepsTheLastGoodPolicyAndSaysWhy() throws Exception {
        Path file = dir.resolve("p.yaml");
        Files.writeString(file, "apiVersion: acceltriage.io/v1\nkind: Policy\nmetadata: {name: first}\n");
        List<String> heard = new ArrayList<>();
        PolicySource source = new PolicySource(file.toString(), new PolicySource.Listener() {
            public void reloaded(String f, Policy p) {
                heard.add("reloaded " + p.name());
            }

            public void refused(String f, String reason, Policy kept) {
                heard.add("refused, kept " + kept.name() + ": " + reason);
            }
        });
        assertEquals("first", source.current().name());

        Files.writeString(file, "apiVersion: acceltriage.io/v1\nkind: Policy\nmetadata: {name: second}\nlimits: {maxCordonedShareOfPool: 3}\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
        assertTrue(!source.check());
        assertEquals("first", source.current().name());
        assertTrue(heard.get(0).startsWith("refused, kept first: " + file + ":4: limits.maxCordonedShareOfPool"), heard.toString());

        Files.writeString(file, "apiVersion: acceltriage.io/v1\nkind: Policy\nmetadata: {name: third}\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(10)));
        assertTrue(source.check());
        assertEquals("third", source.current().name());
        assertEquals("reloaded third", heard.get(1));
    }

    @Test
    void anInvalidFileAtStartRefusesToLoad() throws Exception {
        Path file = dir.resolve("p.yaml");
        Files.writeString(file, "apiVersion: acceltriage.io/v1\nkind: Policy\napprovers: [\"\"]\n");
        var e = assertThrows(DataFiles.InvalidDataFile.class, () -> new PolicySource(file.toString(), null));
        assertTrue(e.getMessage().startsWith(file + ":3: approvers: an entry is empty"), e.getMessage());
    }

    @Test
    void theRepairAndRepeatOffenderKeysAreCheckedWithTheirLines() {
        Policy p = Policy.load("policies/default.yaml");
        assertEquals(List.of("device-plugin", "dcgm-exporter", "dcgm", "gpu-feature-discovery"), p.resetOperands());
        assertEquals(5, p.fatalXidsPerGpu());
        assertEquals(java.time.Duration.ofHours(24), p.xidWindow());
        assertEquals(5, p.remediationsPerNode());
        assertEquals(java.time.Duration.ofDays(7), p.remediationWindow());
        assertEquals("handshake", p.repairProtocol());
        assertEquals(Decision.APPROVE, p.rule(ActionKind.RESET_GPU).decision(), "by default a person approves a GPU reset");

        String head = "apiVersion: acceltriage.io/v1\nkind: Policy\n";
        String protocol = refusal(head + "repair:\n  protocol: ironic\n");
        assertTrue(protocol.startsWith("bad.yaml:4: repair.protocol must be one of") && protocol.endsWith("got 'ironic'"), protocol);
        assertTrue(refusal(head + "repair:\n  protocol: medik8s\n").startsWith("bad.yaml:4: repair.remediation needs apiVersion, kind and namespace"));
        assertTrue(refusal(head + "repair:\n  operands: [device-plugin, \"Bad Name\"]\n")
                .startsWith("bad.yaml:4: repair.operands: 'Bad Name' is not an operand name"));
        assertTrue(refusal(head + "repair:\n  resetTimeout: soon\n").startsWith("bad.yaml:4: repair.resetTimeout: 'soon' is not a duration"));
        assertTrue(refusal(head + "repeatOffenders:\n  xidWindow: 1h\n  fatalXidsPerGpu: 0\n")
                .startsWith("bad.yaml:5: repeatOffenders.fatalXidsPerGpu must be at least 1, got 0"));
        assertTrue(refusal(head + "repeatOffenders:\n  remediationWindow: a week\n")
                .startsWith("bad.yaml:4: repeatOffenders.remediationWindow: 'a week' is not a duration"));
        assertTrue(refusal(head + "repeatOffenders:\n  fatalXids: 5\n").startsWith("bad.yaml:4: unknown key 'fatalXids'"));
        assertTrue(refusal(head + "actions:\n  reset-gpus: {decision: allow}\n").contains("unknown action 'reset-gpus': expected one of"
                + " restart-pod, restart-group, cordon-node, drain-node, shift-replicas, restart-node-agent, reset-gpu, reboot-node, replace-node, return-node"));
    }

    @Test
    void recoveryObjectivesDefaultWhenAbsentAndAreCheckedWithTheirLines() {
        String head = "apiVersion: acceltriage.io/v1\nkind: Policy\n";
        Policy bare = Policy.parse("ok.yaml", head.getBytes(StandardCharsets.UTF_8));
        assertEquals(Policy.DEFAULT_OBJECTIVES, bare.objectivesOrDefault(), "no key: the defaults");
        assertEquals(List.of(), Policy.parse("ok.yaml", (head + "objectives: []\n").getBytes(StandardCharsets.UTF_8))
                .objectivesOrDefault(), "an empty list means none");
        for (String f : List.of("policies/default.yaml", "policies/strict.yaml", "policies/training.yaml")) {
            assertTrue(Policy.load(f).objectivesOrDefault().stream().anyMatch(o -> "mitigate".equals(o.stage())), f);
            assertTrue(Policy.load(f).objectivesOrDefault().stream().anyMatch(Policy.Objective::isLossBudget), f);
        }
        Policy.Objective mitigated = Policy.load("policies/default.yaml").objectivesOrDefault().stream()
                .filter(o -> o.name().equals("device-mitigated")).findFirst().orElseThrow();
        assertEquals(java.time.Duration.ofMinutes(2), mitigated.bound());

        String list = head + "objectives:\n  - {name: decided, stage: decide, within: 1m}\n";
        assertEquals("bad.yaml:6: objectives[1].stage must be one of [detect, decide, mitigate, verify, return-to-service, resolve]"
                + " (or give gpuHoursPerWeek), got 'repair'", refusal(list + "  - name: fixed\n    stage: repair\n    within: 1h\n"));
        assertEquals("bad.yaml:5: objectives[1].family: unknown family 'gpu': expected infrastructure, device, application or none",
                refusal(list + "  - {name: gpu-fast, family: gpu, stage: mitigate, within: 2m}\n"));
        assertTrue(refusal(list + "  - {name: decided, stage: resolve, within: 1h}\n")
                .startsWith("bad.yaml:4: objectives[1]: the name 'decided' is used twice"));
        assertTrue(refusal(list + "  - name: slow\n    stage: verify\n    within: soon\n")
                .startsWith("bad.yaml:7: objectives[1].within: 'soon' is not a duration"));
        assertTrue(refusal(list + "  - {name: zero, stage: verify, within: 0s}\n").contains("objectives[1].within must be more than 0"));
        assertTrue(refusal(list + "  - {name: no-bound, stage: verify}\n").contains("objectives[1].within is required with a stage"));
        assertTrue(refusal(list + "  - {name: Bad_Name, stage: verify, within: 1m}\n").contains("objectives[1].name is required"));
        assertTrue(refusal(list + "  - {name: both, stage: verify, within: 1m, gpuHoursPerWeek: 10}\n")
                .contains("give either stage and within (a time) or gpuHoursPerWeek"));
        assertTrue(refusal(list + "  - {name: budget, gpuHoursPerWeek: 0}\n").contains("gpuHoursPerWeek must be more than 0"));
        assertTrue(refusal(list + "  - {name: budget, family: device, gpuHoursPerWeek: 10}\n").contains("drop family"));
        assertTrue(refusal(list + "  - {name: x, stage: verify, within: 1m, withn: 2m}\n").contains("unknown key 'withn'"));
    }
}
