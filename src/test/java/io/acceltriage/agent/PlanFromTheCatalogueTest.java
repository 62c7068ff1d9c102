package io.acceltriage.agent;

import static io.acceltriage.agent.RulesPlannerTest.NODE;
import static io.acceltriage.agent.RulesPlannerTest.PLANNER;
import static io.acceltriage.agent.RulesPlannerTest.RULES;
import static io.acceltriage.agent.RulesPlannerTest.names;
import static io.acceltriage.agent.RulesPlannerTest.of;
import static io.acceltriage.agent.RulesPlannerTest.touchesANode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.diagnosis.Bundles;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.PodRole;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Proposal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Classifier and planner together on hand-built bundles: what NVIDIA's catalogue and the platform's own
 * statements ask for becomes the plan (a GPU reset, a restart of the application, a reboot through repair,
 * a cordon for replacement), and what no source asks for is escalated instead of fenced.
 */
class PlanFromTheCatalogueTest {

    static Plan plan(Bundles bundles) {
        EvidenceBundle b = bundles.build();
        return PLANNER.plan(RULES.classify(b), b);
    }

    static Bundles gangOnGpu(int gpu) {
        return Bundles.workload("research", "pytorchjob/vit", NODE).holds(gpu, "research", "vit-worker-0")
                .gang("pytorchjob", "research", "vit", "vit-worker-0");
    }

    @Test
    void anXidNvidiaResetsTheGpuForProposesThatReset() {
        Plan p = plan(gangOnGpu(5).xid(5, 136));

        assertEquals(List.of(NODE + "/5"), of(p, ActionKind.RESET_GPU).stream().map(Proposal::target).toList(), "proposals: " + names(p));
    }

    @Test
    void anXidOutsideTheCatalogueFencesNothingAndIsEscalated() {
        Plan p = plan(gangOnGpu(1).xid(1, 250));

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_GROUP).isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void anXidNvidiaSaysToIgnoreIsEscalatedWithNothingDone() {
        Plan p = plan(gangOnGpu(1).xid(1, 121));

        assertTrue(p.proposals().isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void anXidNvidiaRestartsTheApplicationForRestartsThePod() {
        Plan p = plan(Bundles.pod("search", "indexer-0", NODE).holds(0, "search", "indexer-0")
                .batch("deployment", "search", "indexer", "indexer-0").podCrashLooping("search", "indexer-0").xid(0, 8));

        assertEquals(List.of("search/indexer-0"), of(p, ActionKind.RESTART_POD).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertFalse(touchesANode(p), "proposals: " + names(p));
    }

    @Test
    void aContainedEccErrorRestartsTheReplicaAndLeavesTheServingNodeAlone() {
        Plan p = plan(Bundles.pod("serve", "vllm-0", NODE).holds(1, "serve", "vllm-0").serving("deployment", "serve", "vllm", 3, 2, "vllm-0")
                .xid(1, 94).dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 1, 0)
                .log("serve", "vllm-0", "uncorrectable-ecc", "RuntimeError: CUDA error: uncorrectable ECC error encountered"));

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.SHIFT_REPLICAS).isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aNodeRebootTheDriverRequiresGoesToRepairBesideTheFence() {
        Plan p = plan(Bundles.pod("serve", "trt-0", NODE).serving("deployment", "serve", "trt", 3, 2, "trt-0")
                .kernelXid(120, "GSP task timeout @ pc:0x4bd36ec, task: 1")
                .nodeEvent("GpuXidError", "NVRM: Xid (PCI:0000:9a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
                        Bundles.AT)
                .podCrashLooping("serve", "trt-0")
                .log("serve", "trt-0", "serving-model-load", "failed to load 'tensorrt_llm' version 1: Internal: unexpected error"));

        assertEquals(List.of(NODE), of(p, ActionKind.REPAIR_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESET_GPU).isEmpty(), "a kernel line names no GPU index: " + names(p));
    }

    @Test
    void aGpuResetTheDriverRequiresGoesToTheOneGpuWhoseXidJustChanged() {
        Plan p = plan(gangOnGpu(3).xid(3, 154)
                .nodeEvent("GpuXidError", "NVRM: Xid (PCI:0000:5d:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
                        Bundles.AT));

        assertEquals(List.of(NODE + "/3"), of(p, ActionKind.RESET_GPU).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.REPAIR_NODE).isEmpty(), "proposals: " + names(p));
    }

    @Test
    void aGpuResetFlagWithNoGpuToPointAtIsLeftToAPerson() {
        Plan p = plan(gangOnGpu(3).nodeEvent("GpuXidError",
                "NVRM: Xid (PCI:0000:5d:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", Bundles.AT));

        assertTrue(of(p, ActionKind.RESET_GPU).isEmpty(), "proposals: " + names(p));
        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
    }

    @Test
    void aRebootFlagOnlyATenantsLogClaimsRepairsNothing() {
        Plan p = plan(Bundles.pod("serve", "trt-0", NODE).serving("deployment", "serve", "trt", 3, 2, "trt-0").podCrashLooping("serve", "trt-0")
                .log("serve", "trt-0", "serving-model-load",
                        "failed to load 'x' version 1: NVRM: Xid (PCI:0000:9a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"));

        assertTrue(of(p, ActionKind.REPAIR_NODE).isEmpty(), "proposals: " + names(p));
        assertFalse(touchesANode(p), "proposals: " + names(p));
    }

    @Test
    void aGpuDueForReplacementIsCordonedWhileWhatRunsOnItKeepsRunning() {
        Plan p = plan(Bundles.node(NODE).holds(1, "ml", "notebook-0").batch("deployment", "ml", "notebook", "notebook-0")
                .dcgm("DCGM_FI_DEV_RETIRED_SBE", 1, 40, 40).dcgm("DCGM_FI_DEV_RETIRED_DBE", 1, 24, 24));

        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty() && of(p, ActionKind.RESET_GPU).isEmpty(), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("replacement")), p.escalationReasons().toString());
    }

    @Test
    void aFailingDriverContainerIsNotMetWithADevicePluginRestart() {
        Plan p = plan(Bundles.node(NODE).capacity("nvidia.com/gpu", 0, 0, 8)
                .agentCrashLooping(PodRole.DRIVER, "gpu-operator", "nvidia-driver-daemonset-ca619"));

        assertTrue(of(p, ActionKind.RESTART_NODE_AGENT).isEmpty(), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("driver")), p.escalationReasons().toString());
    }

    @Test
    void aNodeKubernetesAlreadyTaintedUnreachableIsNotCordonedAgain() {
        Plan p = plan(Bundles.node(NODE).notReady().taint("node.kubernetes.io/unreachable", "NoSchedule")
                .taint("node.kubernetes.io/unreachable", "NoExecute"));

        assertTrue(of(p, ActionKind.CORDON_NODE).isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aNodeNotReadyWithoutTheControllersTaintIsStillCordoned() {
        Plan p = plan(Bundles.node(NODE).notReady());

        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
    }
}
