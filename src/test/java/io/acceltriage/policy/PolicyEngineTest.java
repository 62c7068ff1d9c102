package io.acceltriage.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.cluster.ClusterFacts;
import io.acceltriage.cluster.PoolState;
import io.acceltriage.cluster.WorkloadFacts;
import io.acceltriage.diagnosis.Family;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each limit of the engine on its own, against a small cluster described in the test. */
class PolicyEngineTest {

    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final PolicyContext DEVICE = new PolicyContext(Family.DEVICE, 0.95, false);
    private static final PolicyContext INFRA = new PolicyContext(Family.INFRASTRUCTURE, 0.95, false);
    private static final PolicyContext APP = new PolicyContext(Family.APPLICATION, 0.95, false);

    /** A cluster of one pool, as the test says it is. */
    static class Cluster implements ClusterFacts {
        PoolState pool = new PoolState("a100-serve", 10, 0, 9, false);
        Map<String, WorkloadFacts> workloads = Map.of();
        List<WorkloadFacts> onNode = List.of();
        Map<String, String> labels = Map.of();
        boolean optedOut;
        String replacedBecause;
        Map<String, String> failedValidations = Map.of();

        public Optional<String> failedValidation(String node) {
            return Optional.ofNullable(failedValidations.get(node));
        }

        public Optional<String> machineReplacedOnRepair(String node) {
            return Optional.ofNullable(replacedBecause);
        }

        public PoolState poolOf(String node) {
            return pool;
        }

        public boolean optedOut(io.acceltriage.cluster.TargetKind kind, String target, String label) {
            return optedOut;
        }

        public Optional<WorkloadFacts> workloadOf(io.acceltriage.cluster.TargetKind kind, String target) {
            return Optional.ofNullable(workloads.get(target));
        }

        public List<WorkloadFacts> workloadsOnNode(String node) {
            return onNode;
        }

        public Map<String, String> labelsOf(io.acceltriage.cluster.TargetKind kind, String target) {
            return labels;
        }
    }

    final Cluster cluster = new Cluster();
    final List<ActionHistory.Past> past = new ArrayList<>();
    final Breaker breaker = Breaker.inMemory();
    /** Fatal XIDs the fault history holds, as the test says. */
    record Seen(String node, String gpu, Instant at) {}
    final List<Seen> fatal = new ArrayList<>();

    private PolicyEngine engine(String yaml) {
        Policy p = Policy.parse("test.yaml", ("apiVersion: acceltriage.io/v1\nkind: Policy\n" + yaml).getBytes(StandardCharsets.UTF_8));
        return new PolicyEngine(() -> p, cluster, since -> past.stream().filter(a -> !a.at().isBefore(since)).toList(), breaker,
                Clock.fixed(NOW, ZoneOffset.UTC), new FaultCounts() {
                    public List<Instant> fatalXids(String node, String gpu, Instant since) {
                        return fatal.stream().filter(f -> f.node().equals(node) && f.gpu().equals(gpu) && !f.at().isBefore(since))
                                .map(Seen::at).toList();
                    }

                    public Map<String, List<Instant>> fatalXidsByGpu(String node, Instant since) {
                        return fatal.stream().filter(f -> f.node().equals(node) && !f.at().isBefore(since)).collect(
                                java.util.stream.Collectors.groupingBy(Seen::gpu, java.util.stream.Collectors.mapping(Seen::at,
                                        java.util.stream.Collectors.toList())));
                    }
                });
    }

    private static Proposal cordon(String node) {
        return new Proposal(ActionKind.CORDON_NODE, node, "test", List.of(), "test");
    }

    private static Proposal of(ActionKind kind, String target) {
        return new Proposal(kind, target, "test", List.of(), "test");
    }

    private static final String ALLOW_ALL = """
            actions:
              cordon-node: {decision: allow, minConfidence: 0.5, cooldown: 30m}
              drain-node: {decision: allow, minConfidence: 0.5}
              restart-pod: {decision: allow, minConfidence: 0.5}
              restart-group: {decision: allow, minConfidence: 0.5}
              shift-replicas: {decision: allow, minConfidence: 0.5}
              restart-node-agent: {decision: allow, minConfidence: 0.5, cooldown: 1h}
            """;

    @Test
    void anActionThePolicyDoesNotNameIsDenied() {
        Verdict v = engine("actions: {}\n").decide(cordon("n1"), DEVICE);
        assertEquals(Decision.DENY, v.decision());
        assertEquals("actions.cordon-node", v.rule());
    }

    @Test
    void theFirstCordonOfAPoolIsAllowedAndTheOneOverTheCapIsDeniedAndTripsTheBreaker() {
        PolicyEngine e = engine(ALLOW_ALL);
        assertEquals(Decision.ALLOW, e.decide(cordon("n1"), DEVICE).decision());
        cluster.pool = new PoolState("a100-serve", 10, 1, 8, false);
        Verdict v = e.decide(cordon("n2"), DEVICE);
        assertEquals(Decision.DENY, v.decision());
        assertEquals("limits.maxCordonedShareOfPool", v.rule());
        assertTrue(breaker.tripped().isPresent(), "the breaker trips when a pool wants more than its cap");
        Verdict after = e.decide(of(ActionKind.RESTART_POD, "ml/p-1"), APP);
        assertEquals("breaker", after.rule(), "while tripped every action escalates: " + after);
    }

    @Test
    void whenTheClusterCannotBeReadNothingIsAllowedAndTheVerdictSaysWhy() {
        ClusterFacts down = new Cluster() {
            @Override
            public PoolState poolOf(String node) {
                throw new io.acceltriage.cluster.ClusterUnreadable("connect timed out", null);
            }
        };
        Policy p = Policy.parse("test.yaml", ("apiVersion: acceltriage.io/v1\nkind: Policy\n" + ALLOW_ALL).getBytes(StandardCharsets.UTF_8));
        Verdict v = new PolicyEngine(() -> p, down, since -> List.of(), breaker, Clock.fixed(NOW, ZoneOffset.UTC)).decide(cordon("n1"), DEVICE);
        assertEquals(Decision.DENY, v.decision());
        assertEquals("cluster", v.rule());
        assertTrue(String.join(" ", v.reasons()).contains("connect timed out"), v.reasons().toString());
    }

    @Test
    void theLastHealthyNodeOfAPoolIsNeverCordoned() {
        cluster.pool = new PoolState("tiny", 2, 0, 0, false);
        Verdict v = engine(ALLOW_ALL + "limits: {maxCordonedShareOfPool: 1.0}\n").decide(cordon("n1"), DEVICE);
        assertEquals(Decision.DENY, v.decision());
        assertEquals("limits.keepLastHealthyNode", v.rule());
    }

    @Test
    void aCooldownRefusesTheSameActionOnTheSameTargetUntilItEnds() {
        past.add(new ActionHistory.Past(ActionKind.RESTART_NODE_AGENT, "n1", NOW.minusSeconds(600)));
        PolicyEngine e = engine(ALLOW_ALL);
        Verdict v = e.decide(of(ActionKind.RESTART_NODE_AGENT, "n1"), INFRA);
        assertEquals("actions.restart-node-agent.cooldown", v.rule());
        assertEquals(Decision.ALLOW, e.decide(of(ActionKind.RESTART_NODE_AGENT, "n2"), INFRA).decision());
    }

    @Test
    void aBudgetPerWorkloadCountsRestartsOfAllItsPods() {
        cluster.workloads = Map.of("ml/train-7f-abc", new WorkloadFacts("Deployment", "ml", "train", false, false, 1, 1, 0, false, Map.of()));
        past.add(new ActionHistory.Past(ActionKind.RESTART_POD, "ml/train-7f-aaa", NOW.minusSeconds(100)));
        past.add(new ActionHistory.Past(ActionKind.RESTART_POD, "ml/train-7f-bbb", NOW.minusSeconds(200)));
        past.add(new ActionHistory.Past(ActionKind.RESTART_POD, "ml/other-1", NOW.minusSeconds(200)));
        Verdict v = engine(ALLOW_ALL + "budgets: [{action: restart-pod, max: 2, window: 1h, per: workload}]\n")
                .decide(of(ActionKind.RESTART_POD, "ml/train-7f-abc"), APP);
        assertEquals("budgets[0]", v.rule());
        assertTrue(v.reasons().get(0).contains("2 restart-pod for workload ml/train"), v.reasons().toString());
    }

    @Test
    void aFleetBudgetCountsEveryTarget() {
        past.add(new ActionHistory.Past(ActionKind.CORDON_NODE, "a", NOW.minusSeconds(100)));
        past.add(new ActionHistory.Past(ActionKind.CORDON_NODE, "b", NOW.minusSeconds(100)));
        PolicyEngine e = engine(ALLOW_ALL + "budgets: [{action: cordon-node, max: 2, window: 1h, per: fleet}]\n");
        assertEquals("budgets[0]", e.decide(cordon("c"), DEVICE).rule());
        past.clear();
        past.add(new ActionHistory.Past(ActionKind.CORDON_NODE, "a", NOW.minusSeconds(7200)));
        assertEquals(Decision.ALLOW, e.decide(cordon("c"), DEVICE).decision(), "actions outside the window do not count");
    }

    @Test
    void tooManyActionsInTheWindowTripTheBreaker() {
        for (int i = 0; i < 3; i++) past.add(new ActionHistory.Past(ActionKind.RESTART_POD, "ns/p" + i, NOW.minusSeconds(60)));
        Verdict v = engine(ALLOW_ALL + "breaker: {maxActions: 3, window: 5m}\n").decide(of(ActionKind.RESTART_POD, "ns/x"), APP);
        assertEquals("breaker.maxActions", v.rule());
        assertTrue(breaker.tripped().isPresent());
        breaker.reset("alice");
        past.clear();
        assertEquals(Decision.ALLOW, engine(ALLOW_ALL).decide(of(ActionKind.RESTART_POD, "ns/x"), APP).decision(),
                "after a person resets it, actions run again");
    }

    @Test
    void aGangMemberIsNeverRestartedAlone() {
        cluster.workloads = Map.of("ml/w-0", new WorkloadFacts("JobSet", "ml", "pretrain", true, false, 0, 0, 0, false, Map.of()));
        Verdict v = engine(ALLOW_ALL).decide(of(ActionKind.RESTART_POD, "ml/w-0"), APP);
        assertEquals("limits.wholeGangsOnly", v.rule());
    }

    @Test
    void aDrainThatWouldStopPartOfAGangIsDenied() {
        cluster.onNode = List.of(new WorkloadFacts("JobSet", "ml", "pretrain", true, false, 0, 0, 0, false, Map.of()));
        assertEquals("limits.wholeGangsOnly", engine(ALLOW_ALL).decide(of(ActionKind.DRAIN_NODE, "n1"), DEVICE).rule());
    }

    @Test
    void aDrainAtTheNextCheckpointOfTheGangOnTheNodeIsAdmittedOnlyAsTheRulesPairItWithTheGangsRestartAndAlwaysWithAPerson() {
        cluster.onNode = List.of(new WorkloadFacts("JobSet", "ml", "pretrain", true, false, 0, 0, 0, false, Map.of()));
        PolicyEngine e = engine(ALLOW_ALL);
        Verdict paired = e.decide(new Proposal(ActionKind.DRAIN_NODE, "n1", "swap", List.of(), Proposal.BY_RULES, true), DEVICE);
        assertEquals(Decision.APPROVE, paired.decision(), "the policy allows drains, but one at a checkpoint waits with a person: " + paired);
        assertTrue(paired.reasons().get(0).contains("at the next checkpoint of the gang on it (waits at most 30m)"), paired.toString());
        assertTrue(paired.reasons().stream().anyMatch(r -> r.contains("after ml/pretrain restarts whole")), paired.toString());

        Verdict unpaired = e.decide(new Proposal(ActionKind.DRAIN_NODE, "n1", "swap", List.of(), "model", true), DEVICE);
        assertEquals("limits.wholeGangsOnly", unpaired.rule(), "no pairing to trust: it would stop part of the gang");
        PolicyContext weak = new PolicyContext(Family.DEVICE, 0.4, false);
        assertEquals("actions.drain-node.minConfidence", e.decide(new Proposal(ActionKind.DRAIN_NODE, "n1", "swap", List.of(),
                Proposal.BY_RULES, true), weak).rule(), "a device to replace is no degradation: the confidence the rule asks for holds");
    }

    @Test
    void aServingWorkloadAtItsFloorIsNotRestartedAndShiftsOnlyWithRoomToScaleUp() {
        WorkloadFacts atFloor = new WorkloadFacts("Deployment", "serve", "vllm", false, true, 3, 2, 2, false, Map.of());
        cluster.workloads = Map.of("serve/vllm-1", atFloor, "serve/vllm", atFloor);
        PolicyEngine e = engine(ALLOW_ALL);
        assertEquals("limits.keepServingFloor", e.decide(of(ActionKind.RESTART_POD, "serve/vllm-1"), APP).rule());
        assertEquals("limits.keepServingFloor", e.decide(of(ActionKind.SHIFT_REPLICAS, "serve/vllm"), DEVICE).rule());
        cluster.workloads = Map.of("serve/vllm", new WorkloadFacts("Deployment", "serve", "vllm", false, true, 3, 2, 2, true, Map.of()));
        Verdict v = e.decide(of(ActionKind.SHIFT_REPLICAS, "serve/vllm"), DEVICE);
        assertEquals(Decision.ALLOW, v.decision());
        assertTrue(v.reasons().get(0).contains("scales up by one first"), v.reasons().toString());
    }

    @Test
    void scopesLimitNamespacesPoolsAndLabels() {
        assertEquals("scope.excludeNamespaces", engine(ALLOW_ALL + "scope: {excludeNamespaces: [kube-system]}\n")
                .decide(of(ActionKind.RESTART_POD, "kube-system/coredns-1"), APP).rule());
        assertEquals("scope.namespaces", engine(ALLOW_ALL + "scope: {namespaces: [ml]}\n")
                .decide(of(ActionKind.RESTART_POD, "serve/x"), APP).rule());
        assertEquals("scope.pools", engine(ALLOW_ALL + "scope: {pools: [h100-train]}\n").decide(cordon("n1"), DEVICE).rule());
        cluster.labels = Map.of("acceltriage.io/criticality", "critical");
        assertEquals("scope.excludeLabels", engine(ALLOW_ALL + "scope: {excludeLabels: {acceltriage.io/criticality: critical}}\n")
                .decide(of(ActionKind.RESTART_POD, "serve/x"), APP).rule());
    }

    @Test
    void anOptedOutTargetIsNeverTouched() {
        cluster.optedOut = true;
        assertEquals("optOutLabel", engine(ALLOW_ALL).decide(cordon("n1"), DEVICE).rule());
    }

    @Test
    void aChangeFreezeDeniesEverything() {
        Verdict v = engine(ALLOW_ALL + "changeFreezes: [{from: 2026-11-29T00:00:00Z, to: 2026-12-02T00:00:00Z, reason: launch}]\n")
                .decide(cordon("n1"), DEVICE);
        assertEquals("changeFreezes", v.rule());
        assertTrue(v.reasons().get(0).contains("launch"));
    }

    @Test
    void aMaintenanceOnlyActionWaitsForAPersonOutsideItsWindow() {
        String rules = ALLOW_ALL.replace("restart-node-agent: {decision: allow, minConfidence: 0.5, cooldown: 1h}",
                "restart-node-agent: {decision: allow, minConfidence: 0.5, maintenanceOnly: true}");
        // NOW is Monday 12:00 UTC.
        Verdict outside = engine(rules + "maintenanceWindows: [{days: [MON], start: \"01:00\", end: \"05:00\"}]\n")
                .decide(of(ActionKind.RESTART_NODE_AGENT, "n1"), INFRA);
        assertEquals(Decision.APPROVE, outside.decision());
        Verdict inside = engine(rules + "maintenanceWindows: [{days: [MON], start: \"11:00\", end: \"13:00\"}]\n")
                .decide(of(ActionKind.RESTART_NODE_AGENT, "n1"), INFRA);
        assertEquals(Decision.ALLOW, inside.decision());
    }

    @Test
    void dryRunIsGlobalOrPerAction() {
        assertTrue(engine("dryRun: true\n" + ALLOW_ALL).decide(cordon("n1"), DEVICE).dryRun());
        String perAction = ALLOW_ALL.replace("cordon-node: {decision: allow, minConfidence: 0.5, cooldown: 30m}",
                "cordon-node: {decision: allow, minConfidence: 0.5, dryRun: true}");
        PolicyEngine e = engine(perAction);
        assertTrue(e.decide(cordon("n1"), DEVICE).dryRun());
        assertTrue(!e.decide(of(ActionKind.RESTART_POD, "ns/p"), APP).dryRun());
    }

    private static final String RECOVERY = ALLOW_ALL + """
              reset-gpu: {decision: approve, minConfidence: 0.5}
              repair-node: {decision: approve, minConfidence: 0.5}
              return-node: {decision: allow, minConfidence: 0.5}
            """;

    @Test
    void theFifthFatalXidOnOneGpuInADayStopsAutomaticResetsAndSaysContactSupport() {
        // Counted in the fault history (sightings), not in the actions table: resets wanted there do not count.
        for (int h = 1; h <= 3; h++) fatal.add(new Seen("n1", "1", NOW.minusSeconds(3600L * h)));
        for (int h = 1; h <= 3; h++) past.add(new ActionHistory.Past(ActionKind.RESET_GPU, "n1/1", NOW.minusSeconds(60L * h)));
        // Another GPU of the node, and an old one, do not count toward GPU 1.
        fatal.add(new Seen("n1", "2", NOW.minusSeconds(60)));
        fatal.add(new Seen("n1", "1", NOW.minusSeconds(3600L * 30)));
        PolicyEngine e = engine(RECOVERY + "repeatOffenders: {remediationsPerNode: 50}\n");
        assertEquals(Decision.APPROVE, e.decide(of(ActionKind.RESET_GPU, "n1/1"), DEVICE).decision(), "the fourth still resets");

        fatal.add(new Seen("n1", "1", NOW.minusSeconds(1800)));
        Verdict fifth = e.decide(of(ActionKind.RESET_GPU, "n1/1"), DEVICE);
        assertEquals(Decision.DENY, fifth.decision());
        assertEquals("repeatOffenders.fatalXidsPerGpu", fifth.rule());
        assertTrue(fifth.reasons().get(0).contains("5 fatal XIDs in the last 1d (the limit is 5") && fifth.reasons().get(0).contains("contact support"),
                fifth.reasons().toString());
        assertEquals(Decision.APPROVE, e.decide(of(ActionKind.RESET_GPU, "n1/2"), DEVICE).decision());
        assertEquals(Decision.ALLOW, e.decide(of(ActionKind.RETURN_NODE, "n1"), DEVICE).decision(),
                "four fatal XIDs recorded: the node may still come back");

        fatal.add(new Seen("n1", "1", NOW.minusSeconds(600)));
        Verdict back = e.decide(of(ActionKind.RETURN_NODE, "n1"), DEVICE);
        assertEquals("repeatOffenders.fatalXidsPerGpu", back.rule(), "a node holding a repeat offender stays fenced: " + back);
        assertTrue(back.reasons().get(0).contains("GPU n1/1 has had 5 fatal XIDs"), back.reasons().toString());
    }

    @Test
    void aNodeRemediatedFiveTimesInAWeekIsNeitherResetNorRepairedNorReturned() {
        past.add(new ActionHistory.Past(ActionKind.RESET_GPU, "n1/0", NOW.minusSeconds(86_400L * 6)));
        past.add(new ActionHistory.Past(ActionKind.RESET_GPU, "n1/3", NOW.minusSeconds(86_400L * 4)));
        past.add(new ActionHistory.Past(ActionKind.REPAIR_NODE, "n1", NOW.minusSeconds(86_400L * 2)));
        past.add(new ActionHistory.Past(ActionKind.CORDON_NODE, "n1", NOW.minusSeconds(86_400L)));
        past.add(new ActionHistory.Past(ActionKind.RESET_GPU, "n2/0", NOW.minusSeconds(600)));
        PolicyEngine e = engine(RECOVERY + "repeatOffenders: {remediationsPerNode: 4, remediationWindow: 7d}\n");
        Verdict reset = e.decide(of(ActionKind.RESET_GPU, "n1/5"), DEVICE);
        assertEquals("repeatOffenders.remediationsPerNode", reset.rule(), reset.toString());
        assertTrue(reset.reasons().get(0).contains("remediated 4 times"), reset.reasons().toString());
        assertEquals("repeatOffenders.remediationsPerNode", e.decide(of(ActionKind.REPAIR_NODE, "n1"), DEVICE).rule());
        assertEquals(Decision.ALLOW, e.decide(of(ActionKind.RETURN_NODE, "n1"), DEVICE).decision(),
                "three remediations are below the limit: the node may come back");
        past.add(new ActionHistory.Past(ActionKind.REPAIR_NODE, "n1", NOW.minusSeconds(60)));
        assertEquals("repeatOffenders.remediationsPerNode", e.decide(of(ActionKind.RETURN_NODE, "n1"), DEVICE).rule(),
                "after the fourth remediation the node is not returned automatically");
        assertEquals(Decision.APPROVE, e.decide(of(ActionKind.RESET_GPU, "n2/1"), DEVICE).decision(), "other nodes are not offenders");
    }

    @Test
    void aNodeGoesToRepairTheWayItsPoolsProtocolCanAndARepeatOffenderIsReplaced() {
        PolicyEngine e = engine(RECOVERY + "repair:\n  pools: {h100-train: karpenter, a100-serve: clusterapi}\n"
                + "repeatOffenders: {remediationsPerNode: 3, remediationWindow: 7d}\n");
        RepairRoute karpenter = e.repairRoute("n1", "h100-train");
        assertEquals(ActionKind.REPLACE_NODE, karpenter.kind(), karpenter.toString());
        assertEquals("karpenter", karpenter.protocol());
        assertTrue(karpenter.why().contains("never reboots"), karpenter.why());
        assertEquals(new RepairRoute(ActionKind.REPAIR_NODE, "clusterapi", null), e.repairRoute("n1", "a100-serve"));
        assertEquals(new RepairRoute(ActionKind.REPAIR_NODE, "handshake", null), e.repairRoute("n1", null), "no pool: the default");

        // Two remediations in the window: a third (this reboot) reaches the limit, so the hardware goes instead.
        past.add(new ActionHistory.Past(ActionKind.RESET_GPU, "n1/0", NOW.minusSeconds(86_400L * 2)));
        past.add(new ActionHistory.Past(ActionKind.REPAIR_NODE, "n1", NOW.minusSeconds(86_400L)));
        RepairRoute offender = e.repairRoute("n1", "a100-serve");
        assertEquals(ActionKind.REPLACE_NODE, offender.kind(), offender.toString());
        assertTrue(offender.why().contains("repeat offender: node n1 has been remediated 3 times"), offender.why());
        assertEquals(ActionKind.REPAIR_NODE, e.repairRoute("n2", "a100-serve").kind(), "another node is no offender");
        assertEquals(Decision.APPROVE, e.decide(of(ActionKind.REPAIR_NODE, "n2"), DEVICE).decision());

        // A GPU over the fatal-XID limit makes its node one too.
        for (int h = 1; h <= 5; h++) fatal.add(new Seen("n2", "4", NOW.minusSeconds(3600L * h)));
        RepairRoute gpu = e.repairRoute("n2", "a100-serve");
        assertEquals(ActionKind.REPLACE_NODE, gpu.kind(), gpu.toString());
        assertTrue(gpu.why().contains("GPU n2/4 has had 5 fatal XIDs"), gpu.why());
    }

    @Test
    void aGpuWhoseResetWouldBeRefusedAsARepeatOffendersGoesBackThroughItsNodesReplacement() {
        PolicyEngine e = engine(RECOVERY + "repair:\n  pools: {a100-serve: clusterapi}\nrepeatOffenders: {remediationsPerNode: 50}\n");
        for (int h = 1; h <= 3; h++) fatal.add(new Seen("n1", "6", NOW.minusSeconds(3600L * h)));
        assertEquals(RepairRoute.RESET, e.routes().resetRoute("n1", "6", "a100-serve"), "this triage's XID is the fourth: still a reset");

        // Four recorded and this triage's, not stored yet: the fifth, which the reset would answer and policy refuse.
        fatal.add(new Seen("n1", "6", NOW.minusSeconds(1800)));
        RepairRoute fifth = e.routes().resetRoute("n1", "6", "a100-serve");
        assertEquals(ActionKind.REPLACE_NODE, fifth.kind(), fifth.toString());
        assertEquals("clusterapi", fifth.protocol(), "the pool's repairer replaces it");
        assertTrue(fifth.why().contains("GPU n1/6 has had 5 fatal XIDs"), fifth.why());
        assertEquals(Decision.DENY, e.decide(of(ActionKind.RESET_GPU, "n1/6"), DEVICE).decision(), "the route agrees with the verdict");
        assertEquals(RepairRoute.RESET, e.routes().resetRoute("n1", "2", "a100-serve"), "another GPU of the node is no offender");
        assertEquals(ActionKind.REPAIR_NODE, e.routes().route("n1", "a100-serve").kind(), "the node's reboot route is read as before");
    }

    @Test
    void aRepairerThatReplacesIsAskedToReplaceAClusterApiPoolWithoutRemediationTemplateAndMachineDeletionRemediation() {
        PolicyEngine e = engine(RECOVERY + "repair:\n  pools: {a100-serve: clusterapi}\n");
        assertEquals(ActionKind.REPAIR_NODE, e.repairRoute("n1", "a100-serve").kind(), "a health check with a template may reboot");
        cluster.replacedBecause = "its MachineHealthCheck capi/mhc names no remediationTemplate";
        RepairRoute capi = e.repairRoute("n1", "a100-serve");
        assertEquals(new RepairRoute(ActionKind.REPLACE_NODE, "clusterapi", cluster.replacedBecause), capi);
        assertEquals(ActionKind.REPAIR_NODE, e.repairRoute("n1", null).kind(), "a handshake pool is not Cluster API's");

        PolicyEngine deleting = engine(RECOVERY + "repair:\n  protocol: medik8s\n  remediation: {apiVersion: machine-deletion-remediation.medik8s.io/v1alpha1,"
                + " kind: MachineDeletionRemediation, namespace: medik8s}\n");
        RepairRoute medik8s = deleting.repairRoute("n1", null);
        assertEquals(ActionKind.REPLACE_NODE, medik8s.kind(), medik8s.toString());
        assertTrue(medik8s.why().contains("MachineDeletionRemediation deletes the node's Machine"), medik8s.why());
        PolicyEngine rebooting = engine(RECOVERY + "repair:\n  protocol: medik8s\n  remediation: {apiVersion: self-node-remediation.medik8s.io/v1alpha1,"
                + " kind: SelfNodeRemediation, namespace: medik8s}\n");
        assertEquals(ActionKind.REPAIR_NODE, rebooting.repairRoute("n1", null).kind());
    }

    @Test
    void theRulesReturnOfARepeatOffendersReplacementIsJudgedAsNewHardwareAnyOtherReturnOnTheOldNodesHistory() {
        PolicyEngine e = engine(RECOVERY + "repeatOffenders: {remediationsPerNode: 50}\n");
        for (int h = 1; h <= 5; h++) fatal.add(new Seen("n1", "2", NOW.minusSeconds(3600L * h)));
        assertEquals(ActionKind.REPLACE_NODE, e.repairRoute("n1", null).kind(), "the offender's route replaces it");
        Verdict byRules = e.decide(new Proposal(ActionKind.RETURN_NODE, "n1", "return its replacement", List.of(), "rules"), DEVICE);
        assertEquals(Decision.ALLOW, byRules.decision(), "the replacement the route brings has no history: " + byRules);
        Verdict byModel = e.decide(new Proposal(ActionKind.RETURN_NODE, "n1", "return it", List.of(), "model"), DEVICE);
        assertEquals("repeatOffenders.fatalXidsPerGpu", byModel.rule(), "another proposer's return is the old node's: " + byModel);
        assertEquals(Decision.ALLOW, e.decide(new Proposal(ActionKind.RETURN_NODE, "n2", "", List.of(), "rules"), DEVICE).decision(),
                "no offender, nothing changes");
    }

    @Test
    void aNodeWhoseLastValidationFailedIsNotReturnedAndThePersonGetsDcgmsWords() {
        String words = "memory (Hardware) failed on GPU 3: A memory mismatch was detected on GPU 3";
        cluster.failedValidations = Map.of("n1", words);
        PolicyEngine e = engine(RECOVERY);
        Verdict v = e.decide(new Proposal(ActionKind.RETURN_NODE, "n1", "return it", List.of(), "rules"), DEVICE);
        assertEquals(Decision.DENY, v.decision(), v.toString());
        assertEquals("validation", v.rule());
        assertTrue(v.reasons().get(0).contains(words), v.reasons().toString());
        assertEquals(Decision.APPROVE, e.decide(of(ActionKind.REPAIR_NODE, "n1"), DEVICE).decision(), "it may still go to repair");
        assertEquals(Decision.ALLOW, e.decide(new Proposal(ActionKind.RETURN_NODE, "n2", "", List.of(), "rules"), DEVICE).decision(),
                "another node's validation says nothing of this one");
        assertEquals(Decision.ALLOW, engine(RECOVERY + "repair: {protocol: karpenter}\n").decide(
                new Proposal(ActionKind.RETURN_NODE, "n1", "return its replacement", List.of(), "rules"), DEVICE).decision(),
                "the replacement a replacing route returns is new hardware");
    }

    @Test
    void aGpuResetNeedsADeviceDiagnosisAndIsJudgedOnItsNode() {
        assertEquals("family", engine(RECOVERY).decide(of(ActionKind.RESET_GPU, "n1/1"), INFRA).rule());
        assertEquals("family", engine(RECOVERY).decide(of(ActionKind.REPAIR_NODE, "n1"), APP).rule());
        cluster.optedOut = true;
        assertEquals("optOutLabel", engine(RECOVERY).decide(of(ActionKind.RESET_GPU, "n1/1"), DEVICE).rule());
        cluster.optedOut = false;
        cluster.pool = new PoolState("tiny", 2, 0, 0, false);
        assertEquals("limits.keepLastHealthyNode", engine(RECOVERY + "limits: {maxCordonedShareOfPool: 1.0}\n")
                .decide(of(ActionKind.RESET_GPU, "n1/1"), DEVICE).rule(), "a reset fences its node: the pool's limits hold");
    }

    @Test
    void aDegradedDeviceTakesAGangOffOnlyAtItsNextCheckpointAndOnlyWithAPerson() {
        PolicyEngine e = engine(ALLOW_ALL);
        PolicyContext degraded = new PolicyContext(Family.DEVICE, 0.5, true);
        Proposal atCheckpoint = new Proposal(ActionKind.RESTART_GROUP, "ml/pretrain", "test", List.of(), "test", true);
        Verdict v = e.decide(atCheckpoint, degraded);
        assertEquals(Decision.APPROVE, v.decision(), v.reasons().toString());
        assertEquals("checkpoints", v.rule());
        assertTrue(v.reasons().get(0).contains("at its next checkpoint (waits at most 30m)"), v.reasons().toString());

        Verdict now = e.decide(of(ActionKind.RESTART_GROUP, "ml/pretrain"), degraded);
        assertEquals(Decision.DENY, now.decision(), "not at a checkpoint: a degraded device is a person's call");
        assertEquals(Decision.DENY, e.decide(new Proposal(ActionKind.DRAIN_NODE, "n1", "test", List.of(), "test", true), degraded).decision(),
                "only the fence and the restart go at a checkpoint");
    }

    @Test
    void aCordonConfirmedAgainstPlannedFencesOfItsPoolIsRefusedOverTheCapAndAllowedWithinIt() {
        PolicyEngine e = engine(ALLOW_ALL);
        Verdict allowed = e.decide(cordon("n2"), DEVICE);
        assertEquals(Decision.ALLOW, allowed.decision(), "the cluster shows no cordon: " + allowed);
        List<ActionHistory.Past> planned = List.of(new ActionHistory.Past(ActionKind.CORDON_NODE, "n1", NOW));
        Verdict v = e.confirm(cordon("n2"), allowed, planned);
        assertEquals("limits.maxCordonedShareOfPool", v.rule(), "n1's planned cordon fills the cap of 1: " + v);
        assertTrue(v.reasons().get(0).contains("n1"), v.toString());
        assertEquals(allowed, e.confirm(cordon("n1"), allowed, planned), "a node's own planned fence is not another one");
        assertEquals(allowed, e.confirm(cordon("n2"), allowed, List.of()), "nothing planned: the verdict stands");
        cluster.pool = new PoolState("a100-serve", 30, 0, 29, false);
        assertEquals(allowed, e.confirm(cordon("n2"), allowed, planned), "a cap of 3 has room for both");
    }

    @Test
    void aCordonAnotherTriageAppliedSinceTheJudgementCountsAtConfirmationThoughNothingIsPlanned() {
        PolicyEngine e = engine(ALLOW_ALL);
        Verdict allowed = e.decide(cordon("n2"), DEVICE);
        assertEquals(Decision.ALLOW, allowed.decision(), "the cluster shows no cordon: " + allowed);
        // n1's cordon was planned, applied and verified between n2's judgement and its decision: no longer PLANNED.
        cluster.pool = new PoolState("a100-serve", 10, 1, 8, false);
        Verdict v = e.confirm(cordon("n2"), allowed, List.of());
        assertEquals("limits.maxCordonedShareOfPool", v.rule(), "1 of 10 cordoned fills the cap of 1: " + v);
        assertTrue(v.reasons().get(0).contains("1 of 10 nodes cordoned now"), v.toString());
        cluster.pool = new PoolState("a100-serve", 10, 1, 8, true);
        assertEquals(allowed, e.confirm(cordon("n2"), allowed, List.of()), "its own node already cordoned: nothing more is fenced");
    }

    @Test
    void aRestartConfirmedAgainstPlannedRestartsOfItsWorkloadKeepsTheServingFloorAndAGangRestartsOnce() {
        PolicyEngine e = engine(ALLOW_ALL + "limits: {keepServingFloor: true}\n");
        WorkloadFacts vllm = new WorkloadFacts("Deployment", "serve", "vllm", false, true, 4, 4, 3, false, Map.of());
        cluster.workloads = Map.of("serve/vllm-1", vllm, "serve/vllm-2", vllm);
        Verdict allowed = e.decide(of(ActionKind.RESTART_POD, "serve/vllm-2"), APP);
        assertEquals(Decision.ALLOW, allowed.decision(), allowed.toString());
        Verdict v = e.confirm(of(ActionKind.RESTART_POD, "serve/vllm-2"), allowed,
                List.of(new ActionHistory.Past(ActionKind.RESTART_POD, "serve/vllm-1", NOW)));
        assertEquals("limits.keepServingFloor", v.rule(), "4 ready, 1 going, 3 needed: one more breaks the floor: " + v);
        Verdict gang = Verdict.allow("actions.restart-group.decision", List.of(), false);
        assertEquals("limits.wholeGangsOnly", e.confirm(of(ActionKind.RESTART_GROUP, "ml/pretrain"), gang,
                List.of(new ActionHistory.Past(ActionKind.RESTART_GROUP, "ml/pretrain", NOW))).rule(), "one restart of a gang at a time");
        Verdict dry = Verdict.allow("actions.cordon-node.decision", List.of(), true);
        assertEquals(dry, e.confirm(cordon("n2"), dry, List.of(new ActionHistory.Past(ActionKind.CORDON_NODE, "n1", NOW))),
                "a dry run changes nothing: not confirmed");
    }
}
