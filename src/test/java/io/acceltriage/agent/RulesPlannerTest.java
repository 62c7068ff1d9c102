package io.acceltriage.agent;

import static io.acceltriage.agent.Diagnoses.Trait.CONTAINED;
import static io.acceltriage.agent.Diagnoses.Trait.DEGRADATION;
import static io.acceltriage.agent.Diagnoses.Trait.RESTART_HELPS;
import static io.acceltriage.agent.Diagnoses.Trait.SYMPTOM;
import static io.acceltriage.diagnosis.Bundles.idOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.diagnosis.Bundles;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.PodRole;
import io.acceltriage.evidence.Source;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Proposal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The no-model planner on hand-built diagnoses and bundles, one behaviour each: the design's first
 * mitigations per failure family (cordon and move what the device fault hurts, restart the node agent,
 * restart the workload, nothing for none), and its limits (gangs restart whole, serving replicas
 * shift, degradation and application faults never fence a node).
 */
class RulesPlannerTest {

    static final String NODE = "gpu-h100-03";
    static final RulesPlanner PLANNER = new RulesPlanner();
    static final String PLUGIN = "nvidia-device-plugin-daemonset-x7k2p";

    static List<String> names(Plan p) {
        return p.proposals().stream().map(Proposal::name).toList();
    }

    static List<Proposal> of(Plan p, ActionKind kind) {
        return p.proposals().stream().filter(x -> x.kind() == kind).toList();
    }

    static boolean touchesANode(Plan p) {
        return p.proposals().stream().anyMatch(x -> x.kind().targetsNode());
    }

    // --- device ---

    @Test
    void aDeviceFaultProposesCordoningThatNodeCitingTheEvidence() {
        EvidenceBundle b = Bundles.node(NODE).xid(2, 79).build();
        String xid = idOf(b, Facts.MetricReading.class);
        Diagnosis d = Diagnoses.device("XID 79 (GPU has fallen off the bus) on GPU 2").because(xid, 0.9).build();

        Plan p = PLANNER.plan(d, b);

        List<Proposal> cordons = of(p, ActionKind.CORDON_NODE);
        assertEquals(1, cordons.size(), "proposals: " + names(p));
        assertEquals(NODE, cordons.get(0).target());
        assertTrue(cordons.get(0).evidenceIds().contains(xid), "cites " + cordons.get(0).evidenceIds());
    }

    @Test
    void aDeviceFaultAlsoAsksAPersonForTheResetRebootOrReplacement() {
        EvidenceBundle b = Bundles.node(NODE).xid(2, 79).build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(p.escalationReasons().isEmpty(), "a fenced device still needs a person");
    }

    @Test
    void aDeviceFaultUnderAGangRestartsTheGangsTopOwnerNeverAMember() {
        EvidenceBundle b = Bundles.node(NODE).holds(2, "ml", "pretrain-workers-0-3").xid(2, 79)
                .podCrashLooping("ml", "pretrain-workers-0-2")
                .gang("JobSet", "ml", "pretrain", "pretrain-workers-0-2", "pretrain-workers-0-3").build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9)
                .setAside(Family.APPLICATION, idOf(b, Facts.ContainerState.class), 0.15, SYMPTOM, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("restart-group:ml/pretrain"), of(p, ActionKind.RESTART_GROUP).stream().map(Proposal::name).toList(),
                "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty(), "never half a gang: " + names(p));
    }

    @Test
    void aGangWhoseMemberTheDeviceFaultKilledRestartsWholeThoughNoSeriesNamesThePod() {
        // The XID gauge carries no pod label (the member died); its log's crash is read as a consequence of the XID.
        EvidenceBundle b = Bundles.node(NODE).xid(1, 149)
                .log("research", "pretrain-worker-1", "device-side-assert", "CUDA error: an illegal memory access was encountered")
                .gang("JobSet", "research", "pretrain", "pretrain-worker-1").build();
        Diagnosis d = Diagnoses.device("XID 149 on GPU 1").because(idOf(b, Facts.MetricReading.class), 0.9)
                .setAsideIn(Family.APPLICATION, idOf(b, Facts.LogMatch.class), 0.7,
                        io.acceltriage.diagnosis.Classifier.CONSEQUENCE + "device-side-assert").build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("restart-group:research/pretrain"), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty(), "never half a gang: " + names(p));
    }

    @Test
    void aLonePodTheDeviceFaultKilledIsLeftToItsController() {
        EvidenceBundle b = Bundles.node(NODE).xid(1, 149)
                .log("bio", "fold-0412", "device-side-assert", "CUDA error: an illegal memory access was encountered")
                .batch("Job", "bio", "fold", "fold-0412").build();
        Diagnosis d = Diagnoses.device("XID 149 on GPU 1").because(idOf(b, Facts.MetricReading.class), 0.9)
                .setAsideIn(Family.APPLICATION, idOf(b, Facts.LogMatch.class), 0.7,
                        io.acceltriage.diagnosis.Classifier.CONSEQUENCE + "device-side-assert").build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty(), "proposals: " + names(p));
    }

    @Test
    void aWorkloadStillWorkingOnACounterOnlyDeviceFaultIsFencedAroundNotKilled() {
        EvidenceBundle b = Bundles.node(NODE).holds(6, "search", "embed-0193").dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 6, 1, 0)
                .batch("Job", "search", "embed", "embed-0193").build();
        Diagnosis d = Diagnoses.device("double-bit ECC on GPU 6").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("cordon-node:" + NODE), names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("search/embed-0193") && r.contains("still works")),
                "a person picks the moment: " + p.escalationReasons());
    }

    @Test
    void aWorkloadShowingTheCounterFaultIsStillRestarted() {
        EvidenceBundle b = Bundles.node(NODE).holds(6, "search", "embed-0193").dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 6, 1, 0)
                .podCrashLooping("search", "embed-0193").batch("Job", "search", "embed", "embed-0193").build();
        Diagnosis d = Diagnoses.device("double-bit ECC on GPU 6").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        assertTrue(names(PLANNER.plan(d, b)).contains("restart-pod:search/embed-0193"));

        // Nor does the rule spare a running pod when the driver reported an XID on the GPU (it kills the contexts there).
        EvidenceBundle x = Bundles.node(NODE).holds(6, "search", "embed-0193").dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 6, 1, 0)
                .xid(6, 48).batch("Job", "search", "embed", "embed-0193").build();
        Diagnoses dx = Diagnoses.device("XID 48 and a DBE on GPU 6");
        x.items().stream().filter(e -> e.fact() instanceof Facts.MetricReading).forEach(e -> dx.because(e.id(), 0.9));
        assertTrue(names(PLANNER.plan(dx.build(), x)).contains("restart-pod:search/embed-0193"));
    }

    @Test
    void aServingDeploymentOnTheBadNodeShiftsItsReplicas() {
        EvidenceBundle b = Bundles.node(NODE).holds(5, "serve", "llm-7d9f8-abcde").xid(5, 79)
                .serving("Deployment", "serve", "llm", 4, 4, "llm-7d9f8-abcde").build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 5").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("shift-replicas:serve/llm"), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty(), "a replica moves, it is not restarted in place: " + names(p));
    }

    @Test
    void aDeviceFaultLeavesABystanderPodOnHealthyDevicesAlone() {
        EvidenceBundle b = Bundles.node(NODE).holds(2, "ml", "finetune-0").xid(2, 79)
                .batch("Job", "ml", "finetune", "finetune-0").batch("Job", "ml", "eval", "eval-0").build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("restart-pod:ml/finetune-0"), "the pod on the failed GPU moves: " + names(p));
        assertTrue(p.proposals().stream().noneMatch(x -> x.target().startsWith("ml/eval")), "moving a bystander is a drain: " + names(p));
    }

    @Test
    void aDeviceFaultOnAnUnknownNodeFencesNothingAndEscalates() {
        EvidenceBundle b = Bundles.pod("serve", "llm-0", NODE).noNode().deviceHealth("serve", "llm-0", "GPU-5c1e", "Unhealthy").build();
        Diagnosis d = Diagnoses.device("GPU-5c1e held by serve/llm-0 is Unhealthy").because(idOf(b, Facts.DeviceHealth.class), 0.75).build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aContainedDeviceErrorRestartsTheWorkloadAndKeepsTheNode() {
        EvidenceBundle b = Bundles.node(NODE).holds(3, "ml", "finetune-0").xid(3, 94).batch("Job", "ml", "finetune", "finetune-0").build();
        Diagnosis d = Diagnoses.device("XID 94 (contained ECC error) on GPU 3").confidence(0.6)
                .because(idOf(b, Facts.MetricReading.class), 0.6, CONTAINED).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("restart-pod:ml/finetune-0"), names(p));
    }

    @Test
    void degradationFencesNothingAndGoesToAPerson() {
        EvidenceBundle b = Bundles.node(NODE).holds(3, "serve", "llm-7d9f8-abcde").xid(3, 63)
                .serving("Deployment", "serve", "llm", 4, 4, "llm-7d9f8-abcde").build();
        Diagnosis d = Diagnoses.device("XID 63 (row remap recorded) on GPU 3").confidence(0.5).degradation()
                .because(idOf(b, Facts.MetricReading.class), 0.5, DEGRADATION).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of(), names(p), "escalated rather than acted on");
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aDegradedGpuUnderACheckpointingGangFencesTheNodeAndRestartsTheGangAtItsNextCheckpoint() {
        EvidenceBundle b = Bundles.node(NODE).holds(3, "ml", "pretrain-workers-0-2").xid(3, 92)
                .gang("JobSet", "ml", "pretrain", "pretrain-workers-0-2").checkpoint("JobSet", "ml", "pretrain", 900, 32).build();
        Diagnosis d = Diagnoses.device("XID 92 (high single-bit ECC error rate) on GPU 3").confidence(0.5).degradation()
                .because(idOf(b, Facts.MetricReading.class), 0.5, DEGRADATION).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("cordon-node:" + NODE, "restart-group:ml/pretrain"), names(p));
        assertTrue(p.proposals().stream().allMatch(io.acceltriage.policy.Proposal::atCheckpoint), p.toString());
        assertFalse(p.escalationReasons().isEmpty(), "a person still hears of the degradation");
    }

    @Test
    void aDegradedGpuUnderAGangThatReportsNoCheckpointIsOnlyEscalated() {
        EvidenceBundle b = Bundles.node(NODE).holds(3, "ml", "pretrain-workers-0-2").xid(3, 92)
                .gang("JobSet", "ml", "pretrain", "pretrain-workers-0-2").build();
        Diagnosis d = Diagnoses.device("XID 92 (high single-bit ECC error rate) on GPU 3").confidence(0.5).degradation()
                .because(idOf(b, Facts.MetricReading.class), 0.5, DEGRADATION).build();

        assertEquals(List.of(), names(PLANNER.plan(d, b)));
    }

    // --- infrastructure ---

    @Test
    void aCrashLoopingDevicePluginRestartsTheNodeAgent() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN).build();
        Diagnosis d = Diagnoses.infrastructure("the device plugin on " + NODE + " is CrashLoopBackOff")
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("restart-node-agent:" + NODE), "proposals: " + names(p));
    }

    @Test
    void aNodeAgentWhoseOwnLogSaysItsConfigIsBrokenIsNotRestarted() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN, "device-plugin-config",
                        "E1130 09:58:01 main.go:151] unable to load config: did not find expected key")
                .agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN).build();
        Diagnosis d = Diagnoses.infrastructure("the node agent cannot load its configuration")
                .because(idOf(b, Facts.LogMatch.class), 0.6, SYMPTOM)
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.RESTART_NODE_AGENT).isEmpty(), "it would crash again: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aNotReadyNodeIsCordoned() {
        EvidenceBundle b = Bundles.node(NODE).notReady().build();
        Diagnosis d = Diagnoses.infrastructure(NODE + " is not ready").because(idOf(b, Facts.NodeCondition.class), 0.8).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("cordon-node:" + NODE), "a node that cannot serve is cordoned: " + names(p));
    }

    @Test
    void aServingReplicaOnANodeThatCannotServeMovesToHealthyHardware() {
        EvidenceBundle b = Bundles.node(NODE).notReady().serving("Deployment", "chat", "vllm-llama8b", 3, 2, "vllm-llama8b-84c6d9f5b7-d2k9h")
                .build();
        Diagnosis d = Diagnoses.infrastructure(NODE + " is not ready").because(idOf(b, Facts.NodeCondition.class), 0.8).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("shift-replicas:chat/vllm-llama8b"), "its replica there serves nothing: " + names(p));
    }

    @Test
    void aDriverLibraryMismatchCordonsTheNodeItLeavesUnableToServe() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN, "nvml-mismatch",
                        "Failed to initialize NVML: Driver/library version mismatch")
                .agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN).build();
        Diagnosis d = Diagnoses.infrastructure("the NVIDIA kernel driver and the user-space libraries disagree")
                .because(idOf(b, Facts.LogMatch.class), 0.85, SYMPTOM)
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("cordon-node:" + NODE), "proposals: " + names(p));
    }

    @Test
    void aNodeThatRefusesToLoadTheDriverModuleIsCordonedAndNoAgentIsRestarted() {
        String driver = "nvidia-driver-daemonset-137fb";
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DRIVER, "gpu-operator", driver)
                .agentLog(PodRole.DRIVER, "gpu-operator", driver, "driver-module-rejected",
                        "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service")
                .agentPod(PodRole.DRIVER, "gpu-operator", driver).build();
        Diagnosis d = Diagnoses.infrastructure("the node refuses to load the NVIDIA kernel module")
                .because(idOf(b, Facts.LogMatch.class), 0.75, SYMPTOM)
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("cordon-node:" + NODE), names(p), "a node that cannot load its driver is fenced, nothing restarted");
    }

    @Test
    void aNodeThatCannotServeSinceItsAgentsRolloutHoldsTheRolloutInsteadOfFencingTheNode() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN, "nvml-mismatch",
                        "Failed to initialize NVML: Driver/library version mismatch")
                .rollout("gpu-operator", "nvidia-driver-daemonset", Bundles.AT.minusSeconds(600))
                .agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN).build();
        Diagnosis d = Diagnoses.infrastructure("the NVIDIA kernel driver and the user-space libraries disagree")
                .because(idOf(b, Facts.LogMatch.class), 0.85, SYMPTOM)
                .because(idOf(b, Facts.ClusterEvent.class), 0.5)
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(names(p).contains("cordon-node:" + NODE), "proposals: " + names(p));
        assertTrue(names(p).contains("pause-rollout:gpu-operator/nvidia-driver-daemonset"), "proposals: " + names(p));
    }

    // --- application ---

    @Test
    void anApplicationFaultOfALonePodRestartsThatPodAndNothingElse() {
        EvidenceBundle b = Bundles.pod("ml", "nightly-eval-7kq2p", NODE).holds(1, "ml", "nightly-eval-7kq2p").xid(1, 13)
                .podCrashLooping("ml", "nightly-eval-7kq2p").batch("Job", "ml", "nightly-eval", "nightly-eval-7kq2p").build();
        Diagnosis d = Diagnoses.application("XID 13 (graphics engine exception) on GPU 1").confidence(0.65)
                .because(idOf(b, Facts.MetricReading.class), 0.6, RESTART_HELPS)
                .because(idOf(b, Facts.ContainerState.class), 0.15, SYMPTOM, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("restart-pod:ml/nightly-eval-7kq2p"), names(p));
    }

    @Test
    void anApplicationFaultOfAGangMemberRestartsTheWholeGang() {
        EvidenceBundle b = Bundles.pod("ml", "pretrain-workers-0-1", NODE).holds(0, "ml", "pretrain-workers-0-1").xid(0, 13)
                .podCrashLooping("ml", "pretrain-workers-0-1").gang("JobSet", "ml", "pretrain", "pretrain-workers-0-0", "pretrain-workers-0-1")
                .build();
        Diagnosis d = Diagnoses.application("XID 13 on GPU 0").confidence(0.65)
                .because(idOf(b, Facts.MetricReading.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("restart-group:ml/pretrain"), names(p));
    }

    @Test
    void anApplicationFaultARestartWillNotClearGoesToItsOwnersAndNeverTouchesTheNode() {
        EvidenceBundle b = Bundles.pod("research", "jupyter-alice-0", NODE).podCrashLooping("research", "jupyter-alice-0")
                .log("research", "jupyter-alice-0", "cuda-oom", "torch.OutOfMemoryError: CUDA out of memory.")
                .batch("Job", "research", "jupyter-alice", "jupyter-alice-0").build();
        Diagnosis d = Diagnoses.application("the workload asked for more accelerator memory than the device has").confidence(0.85)
                .because(idOf(b, Facts.LogMatch.class), 0.85, SYMPTOM).build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty(), "the owning team must fix it");
    }

    @Test
    void anApplicationFaultOfAPodWithoutAControllerRestartsNothingAndEscalates() {
        EvidenceBundle b = Bundles.pod("research", "scratch", NODE).holds(1, "research", "scratch").xid(1, 13).barePod("research", "scratch")
                .build();
        Diagnosis d = Diagnoses.application("XID 13 on GPU 1").confidence(0.6)
                .because(idOf(b, Facts.MetricReading.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of(), names(p), "deleting it would lose it");
        assertFalse(p.escalationReasons().isEmpty());
    }

    // --- none, and missing evidence ---

    @Test
    void noFaultProposesNothingAndPagesNoOne() {
        EvidenceBundle b = Bundles.node(NODE).ready().gpus(8, 8).build();

        Plan p = PLANNER.plan(Diagnoses.none(), b);

        assertEquals(List.of(), names(p));
        assertEquals(List.of(), p.escalationReasons());
    }

    @Test
    void noFaultFoundWhileASourceDidNotAnswerGoesToAPerson() {
        EvidenceBundle b = Bundles.node(NODE).ready().gap(Source.METRICS, "dcgm-exporter on " + NODE + " timed out").build();

        Plan p = PLANNER.plan(Diagnoses.none(), b);

        assertEquals(List.of(), names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("timed out")), "reasons: " + p.escalationReasons());
    }

    @Test
    void aFaultDiagnosedWithAGapInTheEvidenceEscalatesNamingIt() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN)
                .gap(Source.LOGS, "log of gpu-operator/" + PLUGIN + " unreadable: 500").build();
        Diagnosis d = Diagnoses.infrastructure("the device plugin is CrashLoopBackOff")
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("unreadable: 500")), "reasons: " + p.escalationReasons());
    }

    @Test
    void aFreshXidAResetClearsProposesResettingThatOneGpu() {
        EvidenceBundle b = Bundles.node(NODE).xid(1, 48).build();
        Diagnosis d = Diagnoses.device("XID 48 on GPU 1").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of(NODE + "/1"), of(p, ActionKind.RESET_GPU).stream().map(Proposal::target).toList(), names(p).toString());
        assertTrue(of(p, ActionKind.REPAIR_NODE).isEmpty(), names(p).toString());
        assertEquals(1, of(p, ActionKind.CORDON_NODE).size(), "the node is fenced while the GPU waits for its reset");
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("reset-gpu:" + NODE + "/1")), p.escalationReasons().toString());
    }

    @Test
    void anXidOnlyARebootClearsHandsTheNodeToRepairAndAsksToReturnIt() {
        EvidenceBundle b = Bundles.node(NODE).xid(2, 79).build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.RESET_GPU).isEmpty(), names(p).toString());
        assertEquals(List.of("reboot-node:" + NODE, "validate-node:" + NODE, "return-node:" + NODE),
                names(p).stream().filter(n -> n.startsWith("reboot-node") || n.startsWith("validate-node") || n.startsWith("return-node")).toList());
    }

    /** The policy engine of a policy whose h100-train pool Karpenter repairs, with a node's past remediations. */
    static io.acceltriage.policy.PolicyEngine engine(List<io.acceltriage.policy.ActionHistory.Past> past) {
        return engine(past, io.acceltriage.policy.FaultCounts.NONE);
    }

    /** The same, with the GPUs' fatal XIDs the fault history holds. */
    static io.acceltriage.policy.PolicyEngine engine(List<io.acceltriage.policy.ActionHistory.Past> past,
            io.acceltriage.policy.FaultCounts faults) {
        io.acceltriage.policy.Policy p = io.acceltriage.policy.Policy.parse("p.yaml", ("apiVersion: acceltriage.io/v1\nkind: Policy\n"
                + "repair:\n  pools: {h100-train: karpenter}\nrepeatOffenders: {remediationsPerNode: 2, remediationWindow: 7d}\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        // repairRoute reads the policy and the history only; the cluster is read by decide.
        return new io.acceltriage.policy.PolicyEngine(() -> p, null, since -> past, io.acceltriage.policy.Breaker.inMemory(),
                java.time.Clock.systemUTC(), faults);
    }

    static List<String> backToService(Plan p) {
        return names(p).stream().filter(n -> n.startsWith("reboot-node") || n.startsWith("replace-node") || n.startsWith("validate-node")
                || n.startsWith("return-node")).toList();
    }

    @Test
    void anXidOnlyARebootClearsInAPoolThatCannotRebootProposesReplacingTheNode() {
        EvidenceBundle b = Bundles.node(NODE).pool("h100-train").xid(2, 79).build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b, engine(List.of())::repairRoute);

        assertEquals(List.of("replace-node:" + NODE, "validate-node:" + NODE, "return-node:" + NODE), backToService(p));
        String why = of(p, ActionKind.REPLACE_NODE).get(0).reason();
        assertTrue(why.contains("(karpenter)") && why.contains("never reboots") && why.contains("XID 79"), why);
        assertTrue(of(p, ActionKind.VALIDATE_NODE).get(0).reason().contains("its replacement"), names(p).toString());
    }

    @Test
    void theSameXidInAPoolThatCanRebootStillProposesTheReboot() {
        EvidenceBundle b = Bundles.node(NODE).pool("a100-serve").xid(2, 79).build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b, engine(List.of())::repairRoute);

        assertEquals(List.of("reboot-node:" + NODE, "validate-node:" + NODE, "return-node:" + NODE), backToService(p));
    }

    @Test
    void aRepeatOffenderThatNeedsARebootIsProposedForReplacementInstead() {
        EvidenceBundle b = Bundles.node(NODE).pool("a100-serve").xid(2, 79).build();
        Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();
        var earlier = List.of(new io.acceltriage.policy.ActionHistory.Past(ActionKind.REPAIR_NODE, NODE, java.time.Instant.now().minusSeconds(3600)));

        Plan p = PLANNER.plan(d, b, engine(earlier)::repairRoute);

        assertEquals(List.of("replace-node:" + NODE, "validate-node:" + NODE, "return-node:" + NODE), backToService(p));
        String why = of(p, ActionKind.REPLACE_NODE).get(0).reason();
        assertTrue(why.contains("(handshake)") && why.contains("repeat offender") && why.contains("remediated 2 times"), why);
    }

    @Test
    void aGpuWhoseResetThePolicyWouldRefuseAsARepeatOffenderIsProposedForReplacementInsteadOfTheReset() {
        EvidenceBundle b = Bundles.node(NODE).pool("a100-serve").xid(6, 95).build();
        Diagnosis d = Diagnoses.device("XID 95 on GPU 6").because(idOf(b, Facts.MetricReading.class), 0.9).build();
        java.time.Instant now = java.time.Instant.now();
        List<java.time.Instant> four = List.of(now.minusSeconds(3600 * 20), now.minusSeconds(3600 * 14), now.minusSeconds(3600 * 7),
                now.minusSeconds(3600 * 2));

        Plan p = PLANNER.plan(d, b, engine(List.of(), (node, gpu, since) -> NODE.equals(node) && "6".equals(gpu) ? four : List.of()).routes());

        assertTrue(of(p, ActionKind.RESET_GPU).isEmpty(), "the policy would refuse the reset: " + names(p));
        assertEquals(List.of("replace-node:" + NODE, "validate-node:" + NODE, "return-node:" + NODE), backToService(p));
        String why = of(p, ActionKind.REPLACE_NODE).get(0).reason();
        assertTrue(why.contains("repeat offender") && why.contains("5 fatal XIDs") && why.contains("XID 95"), why);
        assertTrue(names(p).contains("cordon-node:" + NODE), names(p).toString());

        Plan fourth = PLANNER.plan(d, b, engine(List.of(), (node, gpu, since) -> four.subList(1, 4)).routes());
        assertEquals(List.of(NODE + "/6"), of(fourth, ActionKind.RESET_GPU).stream().map(Proposal::target).toList(),
                "the fourth fatal XID is still reset: " + names(fourth));
        assertTrue(backToService(fourth).isEmpty(), names(fourth).toString());
    }

    @Test
    void anOldXidOrOneThatIsFatalOnlyWhenRepeatingAsksForNoReset() {
        EvidenceBundle old = Bundles.node(NODE).xidUnchanged(1, 48).build();
        Plan p = PLANNER.plan(Diagnoses.device("XID 48 again").because(idOf(old, Facts.MetricReading.class), 0.9).build(), old);
        assertTrue(of(p, ActionKind.RESET_GPU).isEmpty(), "an XID from before this alert: " + names(p));
        EvidenceBundle ctx = Bundles.node(NODE).xid(1, 109).build();
        Plan q = PLANNER.plan(Diagnoses.device("XID 109").because(idOf(ctx, Facts.MetricReading.class), 0.9).build(), ctx);
        assertTrue(of(q, ActionKind.RESET_GPU).isEmpty(), "109 resets only when repeating: " + names(q));
    }

    // --- provenance ---

    @Test
    void aDeviceDiagnosisRestingOnlyOnAWorkloadsOwnLogFencesNothingAndEscalates() {
        EvidenceBundle b = Bundles.pod("chat", "assistant-0", NODE).log("chat", "assistant-0", "gpu-lost", "GPU is lost")
                .serving("Deployment", "chat", "assistant", 3, 3, "assistant-0").build();
        Diagnosis d = Diagnoses.device("a GPU fell off the bus").because(idOf(b, Facts.LogMatch.class), 0.85).build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.SHIFT_REPLICAS).isEmpty(), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("tenant")), "reasons: " + p.escalationReasons());
    }

    @Test
    void aDeviceDiagnosisWithAPlatformSourceStillFencesTheNode() {
        EvidenceBundle b = Bundles.pod("chat", "assistant-0", NODE).log("chat", "assistant-0", "gpu-lost", "GPU is lost")
                .deviceHealth("chat", "assistant-0", "GPU-2", "Unhealthy").build();
        Diagnosis d = Diagnoses.device("a GPU fell off the bus").because(idOf(b, Facts.LogMatch.class), 0.85)
                .because(idOf(b, Facts.DeviceHealth.class), 0.75).build();

        assertEquals(1, of(PLANNER.plan(d, b), ActionKind.CORDON_NODE).size());
    }

    @Test
    void anInfrastructureDiagnosisRestingOnlyOnATenantsEventRestartsNoNodeAgent() {
        EvidenceBundle b = Bundles.pod("ml", "train-0", NODE)
                .podEvent("ml", "train-0", "UnexpectedAdmissionError", "Allocate failed due to no healthy devices present").build();
        Diagnosis d = Diagnoses.infrastructure("the kubelet could not allocate the devices").because(idOf(b, Facts.ClusterEvent.class), 0.7)
                .build();

        Plan p = PLANNER.plan(d, b);

        assertFalse(touchesANode(p), "proposals: " + names(p));
    }

    // --- a workload's alert, a fault on one member's node ---

    @Test
    void aGangAlertWithAFatalXidOnOneMembersNodeCordonsThatNodeAndRestartsTheGangWhole() {
        EvidenceBundle b = Bundles.node("h100-pt-07").holds(3, "ml", "pretrain-workers-0-2").xid(3, 79)
                .gang("JobSet", "ml", "pretrain", "pretrain-workers-0-2").noNode().build();
        Diagnosis d = Diagnoses.device("XID 79 on h100-pt-07 GPU 3").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("h100-pt-07"), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertEquals(List.of("ml/pretrain"), of(p, ActionKind.RESTART_GROUP).stream().map(Proposal::target).toList());
        assertTrue(of(p, ActionKind.RESTART_POD).isEmpty(), "never a member alone: " + names(p));
    }

    @Test
    void aServingWorkloadsAlertWithADeviceFaultUnderOneReplicaShiftsItsReplicas() {
        EvidenceBundle b = Bundles.node("h200-sv-08").holds(6, "inference", "qwen-0").xid(6, 74)
                .serving("Deployment", "inference", "qwen", 4, 3, "qwen-0").noNode().build();
        Diagnosis d = Diagnoses.device("XID 74 on h200-sv-08 GPU 6").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(1, of(p, ActionKind.CORDON_NODE).size(), "proposals: " + names(p));
        assertEquals(List.of("inference/qwen"), of(p, ActionKind.SHIFT_REPLICAS).stream().map(Proposal::target).toList());
    }

    @Test
    void anAlreadyCordonedNodeIsNotProposedForCordoningAgain() {
        EvidenceBundle b = Bundles.node(NODE).cordoned().xid(2, 48).build();
        Diagnosis d = Diagnoses.device("XID 48 on GPU 2").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.CORDON_NODE).isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    // --- the node cannot serve (class 11), no room to move (class 7), slices (class 5) ---

    static final io.acceltriage.diagnosis.Classifier RULES = new io.acceltriage.diagnosis.Classifier(
            io.acceltriage.diagnosis.XidCatalogue.load(), io.acceltriage.evidence.Toolsets.load("tools"),
            io.acceltriage.evidence.SignatureCatalogue.load(), io.acceltriage.diagnosis.ClusterSignals.load());

    @Test
    void aNodeWhoseNvidiaKernelTasksHangIsCordoned() {
        EvidenceBundle b = Bundles.node(NODE).gpus(8, 8)
                .nodeEvent("TaskHung", "INFO: task nvidia-smi:22817 blocked for more than 120 seconds.", Bundles.AT).build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.RESTART_NODE_AGENT).isEmpty(), "a restart of the plugin cannot unwedge the driver: " + names(p));
    }

    @Test
    void aServingReplicaIsNotShiftedWhenItsOwnNewReplicaCannotBeScheduled() {
        EvidenceBundle b = Bundles.node(NODE).holds(0, "ts", "guard-0").dcgm("DCGM_FI_DEV_ROW_REMAP_FAILURE", 0, 1, 0)
                .serving("Deployment", "ts", "guard", 2, 1, "guard-0")
                .pending("ts", "guard-1", "Unschedulable", "0/12 nodes are available: 12 Insufficient nvidia.com/gpu.", "ts/guard").build();
        Diagnosis d = Diagnoses.device("row remapping failed on GPU 0").because(idOf(b, Facts.MetricReading.class), 0.9).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(1, of(p, ActionKind.CORDON_NODE).size(), "proposals: " + names(p));
        assertTrue(of(p, ActionKind.SHIFT_REPLICAS).isEmpty(), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("no room")), "reasons: " + p.escalationReasons());
    }

    @Test
    void aGangAlertRestartsTheGangWholeWhenOneHostOfItsSliceLostItsChips() {
        EvidenceBundle b = Bundles.workload("tpu", "jobset/dpo", "tpu-host-3").capacity("google.com/tpu", 4, 0, 4)
                .sliceHost("tpu-v5p-a", 4, 0, 4, 3).gang("JobSet", "tpu", "dpo").build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of("tpu-host-3"), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertEquals(List.of("tpu/dpo"), of(p, ActionKind.RESTART_GROUP).stream().map(Proposal::target).toList());
    }

    // --- a broken workload is never "no fault" without a page (class 8) ---

    @Test
    void noFaultFoundForADeploymentWithNoReplicaAvailableStillEscalates() {
        EvidenceBundle b = Bundles.pod("nlp", "api-0", NODE).serving("Deployment", "nlp", "api", 2, 0, "api-0").build();

        Plan p = PLANNER.plan(Diagnoses.none(), b);

        assertTrue(p.proposals().isEmpty(), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("0 of 2")), "reasons: " + p.escalationReasons());
    }

    @Test
    void noFaultFoundForAHealthyWorkloadDoesNotPage() {
        EvidenceBundle b = Bundles.pod("nlp", "api-0", NODE).serving("Deployment", "nlp", "api", 2, 2, "api-0").build();

        assertTrue(PLANNER.plan(Diagnoses.none(), b).escalationReasons().isEmpty());
    }

    // --- fleet ---

    static io.acceltriage.evidence.Evidence rollout(String id, String namespace, String daemonSet) {
        String summary = "DaemonSet " + namespace + "/" + daemonSet + " revision 2 created 2026-11-30T09:52:00Z";
        return new io.acceltriage.evidence.Evidence(id, Source.CLUSTER, summary, new Facts.ClusterEvent(namespace, "DaemonSet",
                daemonSet, "Normal", "NewRevision", summary, 1, java.time.Instant.parse("2026-11-30T09:52:00Z")));
    }

    @Test
    void aFleetFaultThatFollowsANodeAgentRolloutProposesPausingThatRolloutCitingIt() {
        Diagnosis d = Diagnoses.infrastructure("the same fault on many nodes").build();

        List<Proposal> p = RulesPlanner.pauseRollouts(d, List.of(rollout("E7", "gpu-operator", "nvidia-device-plugin-daemonset")));

        assertEquals(List.of("pause-rollout:gpu-operator/nvidia-device-plugin-daemonset"), p.stream().map(Proposal::name).toList());
        assertEquals(List.of("E7"), p.get(0).evidenceIds());
        assertTrue(p.get(0).reason().contains("revision 2"), p.get(0).reason());
    }

    @Test
    void aFleetFaultOfAnotherFamilyPausesNoRolloutEvenRightAfterOne() {
        Diagnosis d = Diagnoses.application("the same application fault on many subjects").build();

        assertEquals(List.of(), RulesPlanner.pauseRollouts(d, List.of(rollout("E7", "gpu-operator", "nvidia-device-plugin-daemonset"))));
    }

    @Test
    void evidenceThatIsNoDaemonSetRevisionPausesNothing() {
        Diagnosis d = Diagnoses.infrastructure("the same fault on many nodes").build();
        var event = new io.acceltriage.evidence.Evidence("E2", Source.CLUSTER, "pod restarted", new Facts.ClusterEvent("ml", "Pod",
                "trainer-0", "Warning", "BackOff", "Back-off", 3, java.time.Instant.parse("2026-11-30T09:52:00Z")));

        assertEquals(List.of(), RulesPlanner.pauseRollouts(d, List.of(event)));
    }

    // --- the blind round e-*: classes of failure ---

    @Test
    void aFaultOfTheWholeNodeRestartsEveryGangHoldingItsGpusThoughNoneCrashedYet() {
        EvidenceBundle b = Bundles.node(NODE).condition("SysLogsSXIDError", "True", "SysLogsSXIDErrorIsNotHealthy",
                        "SXid (PCI:0000:86:00.0): 24007, Fatal, Link 44 sourcetrack timeout error")
                .gang("JobSet", "ml", "sft", "sft-workers-0-1").build();
        Diagnosis d = Diagnoses.device("a fatal NVSwitch error").because(idOf(b, Facts.NodeCondition.class), 0.85,
                io.acceltriage.diagnosis.Classifier.NODE_WIDE + "condition-SysLogsSXIDError").build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(names(p).contains("cordon-node:" + NODE), "proposals: " + names(p));
        assertEquals(List.of("restart-group:ml/sft"), of(p, ActionKind.RESTART_GROUP).stream().map(Proposal::name).toList(),
                "proposals: " + names(p));
    }

    @Test
    void aFaultOfOneDeviceLeavesARunningGangOnTheNodesOtherGpusAlone() {
        EvidenceBundle b = Bundles.node(NODE).condition("GpuUnhealthy", "True", "GpuUnhealthy", "GPU 3 unhealthy")
                .gang("JobSet", "ml", "sft", "sft-workers-0-1").build();
        Diagnosis d = Diagnoses.device("an unhealthy GPU").because(idOf(b, Facts.NodeCondition.class), 0.85, "condition-GpuUnhealthy").build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.RESTART_GROUP).isEmpty(), "proposals: " + names(p));
    }

    @Test
    void aNodeAgentFailingAfterItsDaemonSetsRolloutHoldsTheRolloutAndRestartsNothing() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLoopingAsPlatform(PodRole.DRIVER, "gpu-operator", "nvidia-driver-daemonset-8d014")
                .rollout("gpu-operator", "nvidia-driver-daemonset", Bundles.AT.minusSeconds(40 * 60)).gpus(8, 0).build();
        Diagnosis d = Diagnoses.infrastructure("the driver on " + NODE + " is CrashLoopBackOff")
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS)
                .because(idOf(b, Facts.ClusterEvent.class), 0.5)
                .because(idOf(b, Facts.AcceleratorCapacity.class), 0.65).build();

        Plan p = PLANNER.plan(d, b);

        assertEquals(List.of("pause-rollout:gpu-operator/nvidia-driver-daemonset"), names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("rollout")), "a person decides: " + p.escalationReasons());
    }

    @Test
    void aFailingOperandIsNotHelpedByRestartingTheDevicePlugin() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLoopingAsPlatform(PodRole.OPERAND, "gpu-operator", "nvidia-mig-manager-77c97").build();
        Diagnosis d = Diagnoses.infrastructure("the MIG manager on " + NODE + " is CrashLoopBackOff")
                .because(idOf(b, Facts.ContainerState.class), 0.6, RESTART_HELPS).build();

        Plan p = PLANNER.plan(d, b);

        assertTrue(of(p, ActionKind.RESTART_NODE_AGENT).isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aPlannedChangeExplainsTheSilenceOfTheExporterItPaused() {
        EvidenceBundle planned = Bundles.node(NODE).nodeLabel("nvidia.com/mig.config.state", "pending")
                .gap(Source.METRICS, "exporter on " + NODE + " unreachable").build();
        Diagnosis d = new Diagnosis(Family.NONE, "no fault found in the evidence", 0.2, List.of(), List.of(new io.acceltriage.diagnosis.Finding(
                Family.INFRASTRUCTURE, 0.1, "a MIG change under way", List.of(idOf(planned, Facts.NodeLabel.class)),
                io.acceltriage.diagnosis.Classifier.PLANNED + "nvidia.com/mig.config.state", true, false, false, false)), false, List.of());

        assertTrue(PLANNER.plan(d, planned).escalationReasons().isEmpty(), "nothing to page about");
        EvidenceBundle unplanned = Bundles.node(NODE).gap(Source.METRICS, "exporter on " + NODE + " unreachable").build();
        assertFalse(PLANNER.plan(Diagnoses.none(), unplanned).escalationReasons().isEmpty(), "without the change the silence is a gap");
    }

    // --- a node its provisioner or the autoscaler is removing ---

    @Test
    void aDeviceFaultOnANodeBeingRemovedIsReportedButNothingIsDoneOnTheNode() {
        EvidenceBundle b = Bundles.node(NODE).taint("karpenter.sh/disrupted", "NoSchedule").beingDeleted("karpenter.sh/termination")
                .holds(2, "serve", "llm-7d9f8-abcde").serving("Deployment", "serve", "llm", 4, 4, "llm-7d9f8-abcde").xid(2, 79).build();
        Diagnosis d = RULES.classify(b);
        assertEquals(Family.DEVICE, d.family(), "the fault is still reported: " + d.cause());

        Plan p = PLANNER.plan(d, b, engine(List.of())::repairRoute);

        assertEquals(List.of(), names(p), "no cordon, repair or move on a node that is leaving");
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("being removed on purpose") && r.contains("Karpenter")
                && r.contains("XID 79")), p.escalationReasons().toString());
    }

    @Test
    void anInfrastructurePlanOnANodeBeingRemovedProposesNothingThereAndSaysWhy() {
        EvidenceBundle b = Bundles.node(NODE).taint("ToBeDeletedByClusterAutoscaler", "1764792571", "NoSchedule")
                .agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", PLUGIN).build();
        Diagnosis d = new Diagnosis(Family.INFRASTRUCTURE, "the device plugin is CrashLoopBackOff", 0.6,
                List.of(idOf(b, Facts.ContainerState.class)), List.of(
                        new io.acceltriage.diagnosis.Finding(Family.INFRASTRUCTURE, 0.6, "the device plugin is CrashLoopBackOff",
                                List.of(idOf(b, Facts.ContainerState.class)), "node-agent", false, false, false, true),
                        new io.acceltriage.diagnosis.Finding(Family.INFRASTRUCTURE, 0.1, "the cluster autoscaler is scaling the node down",
                                List.of(idOf(b, Facts.NodeTaint.class)), io.acceltriage.diagnosis.Classifier.LEAVING
                                        + "ToBeDeletedByClusterAutoscaler", true, false, false, false)), false, List.of());

        Plan p = PLANNER.plan(d, b);

        assertFalse(touchesANode(p), "proposals: " + names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("being removed on purpose")
                && r.contains("restart-node-agent:" + NODE + " not proposed")), p.escalationReasons().toString());
    }

    // --- a GPU awaiting its reset, a health agent's verdict, a runtime that starts nothing, admission ---

    @Test
    void aGpuAwaitingAResetIsFencedWhileTheJobOnItKeepsRunningAndNothingIsResetUnderIt() {
        EvidenceBundle b = Bundles.node(NODE).holds(1, "batch", "backfill-p7d4m").batch("Job", "batch", "backfill", "backfill-p7d4m")
                .dcgm("DCGM_FI_DEV_RETIRED_PENDING", 1, 1, 0).xid(1, 63).build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of("cordon-node:" + NODE), names(p));
        assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("needs a reset")), "reasons: " + p.escalationReasons());
    }

    @Test
    void aGpuWhoseHardwareAPersonMustServiceIsFencedAndNothingIsMovedResetOrRebooted() {
        // XID 54: NVIDIA's CHECK_MECHANICALS (the board's auxiliary power is not connected); the replica on it still answers
        EvidenceBundle xid54 = Bundles.node(NODE).holds(1, "search", "tei-0").serving("Deployment", "search", "tei", 2, 2, "tei-0")
                .xid(1, 54).build();
        // PCIe replays far above 8 a minute on an AMD GPU running a Job
        EvidenceBundle replays = Bundles.node(NODE).holds(5, "llm-ft", "ft-0").batch("Job", "llm-ft", "ft", "ft-0")
                .dcgm("pcie_replay_count", 5, 14212, 2310).build();

        for (EvidenceBundle b : List.of(xid54, replays)) {
            Plan p = PLANNER.plan(RULES.classify(b), b);

            assertEquals(List.of("cordon-node:" + NODE), names(p));
            assertTrue(p.escalationReasons().stream().anyMatch(r -> r.contains("needs a person")), "reasons: " + p.escalationReasons());
        }
    }

    @Test
    void thePowerBrakeOnEveryGpuOfANodeIsTheNodesPowerAndFencesItWhileOneGpusSlowdownLeavesItInService() {
        Bundles everyGpu = Bundles.node(NODE).capacity("nvidia.com/gpu", 8, 8, 8);
        Bundles twoGpus = Bundles.node(NODE).capacity("nvidia.com/gpu", 8, 8, 8);
        for (int gpu = 0; gpu < 8; gpu++) everyGpu.dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", gpu, 0x88, 0);
        for (int gpu = 0; gpu < 2; gpu++) twoGpus.dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", gpu, 0x48, 0);
        EvidenceBundle node = everyGpu.build();
        EvidenceBundle two = twoGpus.build();

        assertEquals(List.of("cordon-node:" + NODE), names(PLANNER.plan(RULES.classify(node), node)));
        assertEquals(List.of(), names(PLANNER.plan(RULES.classify(two), two)), "two GPUs holding their clocks are those GPUs'");
    }

    @Test
    void aPlatformHealthAgentsEvictVerdictFencesTheIdleNode() {
        EvidenceBundle b = Bundles.node(NODE).nodeLabel("autopilot.ibm.com/gpuhealth", "EVICT")
                .nodeLabel("autopilot.ibm.com/dcgm.level.3", "ERR_2026-12-03_05.58.41UTC_page_retirement_row_remap.2").build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aNodeWhoseRuntimeStopsSeveralWorkloadsContainersIsCordoned() {
        String error = "OCI runtime create failed: error running hook #0: nvidia-container-cli: mount error: file creation failed:"
                + " /run/nvidia-persistenced/socket: no such device or address";
        EvidenceBundle b = Bundles.pod("speech", "asr-0", NODE).podCannotStart("speech", "asr-0", error, io.acceltriage.evidence.Trust.PLATFORM)
                .podCannotStart("search", "rerank-0", error, io.acceltriage.evidence.Trust.PLATFORM).build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of(NODE), of(p, ActionKind.CORDON_NODE).stream().map(Proposal::target).toList(), "proposals: " + names(p));
    }

    @Test
    void podsRejectedAtAdmissionFenceNothingAndAskAPerson() {
        EvidenceBundle b = Bundles.node(NODE).gpus(8, 8).rejected("ci", "runner-a", "TopologyAffinityError",
                "Pod was rejected: Resources cannot be allocated with Topology locality").build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertTrue(p.proposals().isEmpty(), "proposals: " + names(p));
        assertFalse(p.escalationReasons().isEmpty());
    }

    @Test
    void aNodeAgentWhoseOwnLogShowsAFailureItsRestartClearsIsRestartedOnItsOwnNode() {
        EvidenceBundle b = Bundles.workload("serve", "deployment/triton", NODE)
                .agentPodOn(PodRole.OPERAND, "gpu-operator", "gpu-feature-discovery-3a937", "h100-infer-11")
                .agentLog(PodRole.OPERAND, "gpu-operator", "gpu-feature-discovery-3a937", "gfd-labels-nothing",
                        "W1203 05:33:10.547402 1 main.go:260] Warning: no labels generated from any source").build();

        Plan p = PLANNER.plan(RULES.classify(b), b);

        assertEquals(List.of("restart-node-agent:h100-infer-11"), names(p));
    }
}
