package io.acceltriage.diagnosis;

import static io.acceltriage.diagnosis.Bundles.idOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.PodRole;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Source;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.policy.Policy;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rule-based classifier on hand-built bundles, one behaviour each. Expectations come from the
 * design's failure families, its XID catalogue and DCGM signal table, and the knowledge files
 * ({@code knowledge/*.yaml}, {@code tools/*.yaml}), loaded the way production loads them; the
 * scenario corpus replays whole incidents beside these.
 */
class ClassifierTest {

    static final String NODE = "gpu-h100-03";
    static final Classifier RULES = new Classifier(XidCatalogue.load(), Toolsets.load("tools"), SignatureCatalogue.load(),
            ClusterSignals.load());
    static final Policy SHIPPED = Policy.load("policies/default.yaml");

    static Diagnosis classify(Bundles b) {
        return RULES.classify(b.build());
    }

    /** The confidence the shipped policy asks before it lets {@code action} run. */
    static double minConfidence(String action) {
        return SHIPPED.actions().get(action).minConfidence();
    }

    /** Below this the shipped policy lets no action run at all. */
    static double lowestActingConfidence() {
        return SHIPPED.actions().values().stream().mapToDouble(Policy.ActionRule::minConfidence).min().orElseThrow();
    }

    // --- XIDs: the catalogue, repetition, history ---

    @Test
    void aFatalXidOnAGpuIsADeviceFaultCitingTheXidAndClearEnoughToCordon() {
        EvidenceBundle b = Bundles.node(NODE).xid(2, 79).build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.MetricReading.class)), "cites " + d.evidenceIds());
        assertTrue(d.cause().contains("79"), d.cause());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
    }

    @ParameterizedTest(name = "XID {0}")
    @ValueSource(ints = {48, 62, 64, 74, 79, 95, 119, 120, 140, 143, 144, 145, 146, 147, 148, 149, 150})
    void everyXidTheDesignCallsFatalAndDeviceIsADeviceFaultTheNodeCannotStayWith(int code) {
        Diagnosis d = classify(Bundles.node(NODE).xid(0, code));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.degradation(), "a fatal XID is not degradation");
        assertFalse(d.nodeMayStay(), "a fatal XID fences the node");
    }

    @Test
    void xid61AMicroControllerBreakpointIsTheDriverOrFirmwaresSoInfrastructure() {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).xid(0, 61)).family());
    }

    @ParameterizedTest(name = "XID {0}")
    @ValueSource(ints = {13, 31, 43, 68, 69})
    void anApplicationXidReportedOnceIsTheApplications(int code) {
        assertEquals(Family.APPLICATION, classify(Bundles.node(NODE).xid(4, code)).family());
    }

    @ParameterizedTest(name = "XID {0}")
    @ValueSource(ints = {13, 31})
    void anXidThatRepeatsOnTheSameGpuIsTheDevices(int code) {
        EvidenceBundle b = Bundles.node(NODE).xid(4, code).xidCount(4, code, 5).build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(b.items().get(1).id()), "cites the exporter's count: " + d.evidenceIds());
    }

    @Test
    void xid13OnceEachOnDifferentGpusStaysTheApplications() {
        Diagnosis d = classify(Bundles.node(NODE).xid(1, 13).xid(5, 13).xidCount(1, 13, 1).xidCount(5, 13, 1));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void anUnchangedXidGaugeIsHistoryAndNeverAFaultAlone() {
        Diagnosis d = classify(Bundles.node(NODE).xidUnchanged(2, 79));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void xid45IsACleanupSoTheFatalXidBeforeItDecides() {
        EvidenceBundle b = Bundles.node(NODE).xid(7, 45).kernelXid(48, "An uncorrectable double bit error (DBE) has been detected").build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.ClusterEvent.class)), "cites the XID 48 line: " + d.evidenceIds());
    }

    @Test
    void aKernelXidRelayedByNodeProblemDetectorIsClassifiedByItsCode() {
        EvidenceBundle b = Bundles.node(NODE).kernelXid(79, "GPU has fallen off the bus.").build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.ClusterEvent.class)), "cites " + d.evidenceIds());
    }

    // --- contained errors and degradation: the node stays ---

    @Test
    void aContainedEccErrorXid94IsTheDevicesButTheNodeStays() {
        Diagnosis d = classify(Bundles.node(NODE).holds(3, "ml", "train-0").xid(3, 94));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.nodeMayStay(), "contained: the app restarts, the node stays");
        assertFalse(d.degradation());
    }

    @ParameterizedTest(name = "XID {0}")
    @ValueSource(ints = {63, 92})
    void aDegradationXidIsADeviceDegradationTooWeakForAnyAction(int code) {
        Diagnosis d = classify(Bundles.node(NODE).xid(3, code));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.degradation(), "degradation flag");
        assertTrue(d.nodeMayStay());
        assertTrue(d.confidence() < lowestActingConfidence(), "low confidence, escalated not acted on: " + d.confidence());
    }

    @Test
    void retiredPagesOfBothKindsAddingUpTo63MakeTheGpuDueForReplacement() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_RETIRED_SBE", 1, 40).dcgm("DCGM_FI_DEV_RETIRED_DBE", 1, 24));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.degradation(), "at the limit the GPU cannot retire more pages: keep new work off it and replace it");
        assertTrue(d.supporting().stream().anyMatch(f -> f.group().startsWith(Classifier.REPLACE_DEVICE)), d.findings().toString());
    }

    @ParameterizedTest(name = "clock event reasons {0}")
    @ValueSource(ints = {0x8, 0x20, 0x40, 0x80, 0x40 | 0x1, 0x20 | 0x1})
    void hardwareSlowdownThermalOrPowerBrakeClockReasonsAreDegradation(int reasons) {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 0, reasons));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.degradation(), "slow, not broken");
    }

    @ParameterizedTest(name = "clock event reasons {0}")
    @ValueSource(ints = {0x1, 0x2, 0x4, 0x1 | 0x4})
    void idleApplicationClocksOrASoftwarePowerCapAreNoFault(int reasons) {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 0, reasons)).family());
    }

    @Test
    void aGpuWithinAFewDegreesOfItsSlowdownLimitIsDegradation() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_GPU_TEMP", 6, 86));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.degradation());
    }

    @Test
    void aFatalXidBesideThermalThrottlingIsNotMereDegradation() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 2, 0x40).xid(2, 79));

        assertEquals(Family.DEVICE, d.family());
        assertFalse(d.degradation());
        assertFalse(d.nodeMayStay());
    }

    // --- DCGM counters and thresholds ---

    @Test
    void anyIncreaseOfDoubleBitEccErrorsIsADeviceFault() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 5, 3, 2));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.degradation());
    }

    @Test
    void aDoubleBitEccCounterThatDidNotMoveIsNoFault() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 5, 2, 2)).family());
    }

    @Test
    void aRowRemapFailureIsADeviceFault() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_ROW_REMAP_FAILURE", 1, 1));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.nodeMayStay());
    }

    @Test
    void pcieReplaysAboveEightAMinuteAreTheDevices() {
        // 100 replays in the ten minutes between the readings: 10 a minute.
        assertEquals(Family.DEVICE, classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 0, 1100, 1000)).family());
    }

    @Test
    void pcieReplaysBelowEightAMinuteAreNoFault() {
        // 50 replays in ten minutes: 5 a minute.
        assertEquals(Family.NONE, classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 0, 1050, 1000)).family());
    }

    @Test
    void nvlinkCrcErrorsAtAHundredPerSecondAreTheDevices() {
        // 120 per second over the ten minutes between the readings.
        assertEquals(Family.DEVICE,
                classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", 0, 120 * 600, 0)).family());
    }

    @Test
    void readingsInsideTheirLimitsAreNoFault() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_GPU_TEMP", 0, 61).dcgm("DCGM_FI_DEV_MEMORY_TEMP", 0, 70)
                .dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 0, 0, 0).dcgm("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 0, 0));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void anAlertWithoutSupportingEvidenceIsNone() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).ready().gpus(8, 8)).family());
    }

    // --- device health as Kubernetes reports it ---

    @Test
    void allocatableBelowCapacityIsADeviceTheDevicePluginMarkedUnhealthy() {
        EvidenceBundle b = Bundles.node(NODE).gpus(8, 7).build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.AcceleratorCapacity.class)));
    }

    @Test
    void noGpuCapacityOnANodeLabelledForGpusIsInfrastructure() {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).capacity("nvidia.com/gpu", 0, 0, 8)).family());
    }

    @Test
    void anUnhealthyDeviceInAllocatedResourcesStatusIsTheDevices() {
        EvidenceBundle b = Bundles.node(NODE).deviceHealth("serve", "llm-0", "GPU-5c1e", "Unhealthy").build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.DeviceHealth.class)));
    }

    @Test
    void aHealthyDeviceInAllocatedResourcesStatusIsNoFault() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).deviceHealth("serve", "llm-0", "GPU-5c1e", "Healthy")).family());
    }

    @Test
    void anEnforcedDraDeviceTaintIsTheDevices() {
        EvidenceBundle b = Bundles.node(NODE).deviceTaint("gpu-3", "example.com/unhealthy", "NoExecute").build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.DeviceTaint.class)));
    }

    @Test
    void aCloudAgentsGpuMissingConditionIsTheDevices() {
        assertEquals(Family.DEVICE, classify(Bundles.node(NODE).condition("GPUMissing", "True", "GPUMissing", "expected 8 GPUs, found 7"))
                .family());
    }

    @Test
    void aTpuUnhealthyConditionIsTheDevices() {
        assertEquals(Family.DEVICE, classify(Bundles.node("gke-tpu-v5p-0").condition("TPUUnhealthy", "True", "ChipError", "chip 2"))
                .family());
    }

    // --- infrastructure: node, node agents, runtime ---

    @Test
    void aNotReadyNodeIsInfrastructure() {
        EvidenceBundle b = Bundles.node(NODE).notReady().build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.NodeCondition.class)));
    }

    @Test
    void aCrashLoopingDevicePluginIsInfrastructure() {
        EvidenceBundle b = Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", "nvidia-device-plugin-daemonset-x7k2p")
                .build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.ContainerState.class)));
    }

    @Test
    void aNodeAgentWhoseImageHasNoBuildForTheNodesArchitectureIsThePlatformsNotAWorkloads() {
        String plugin = "nvidia-device-plugin-daemonset-k2x9q";
        String line = "exec /usr/bin/nvidia-device-plugin: exec format error";
        // A node agent's line matches both signatures (the workload's one is not agent-only): the agent's must win.
        Diagnosis d = classify(Bundles.node(NODE).agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", plugin)
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", plugin, "exec-format-error", line)
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", plugin, "agent-exec-format-error", line));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    @Test
    void aDriverLibraryVersionMismatchIsInfrastructure() {
        Diagnosis d = classify(Bundles.node(NODE)
                .agentCrashLooping(PodRole.DEVICE_PLUGIN, "gpu-operator", "nvidia-device-plugin-daemonset-x7k2p")
                .agentLog(PodRole.DEVICE_PLUGIN, "gpu-operator", "nvidia-device-plugin-daemonset-x7k2p", "nvml-mismatch",
                        "E1130 09:58:01 main.go:132] Failed to initialize NVML: Driver/library version mismatch"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    static Stream<Arguments> infrastructureEvents() {
        return Stream.of(
                // kubernetes docs "Node Shutdowns": a pod terminated by the kubelet's graceful node shutdown (a spot VM reclaimed).
                Arguments.of("Terminated", "Pod was terminated in response to imminent node shutdown."),
                Arguments.of("UnexpectedAdmissionError", "Allocate failed due to device plugin GetPreferredAllocation rpc failed"),
                Arguments.of("FailedCreatePodSandBox", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get"
                        + " sandbox runtime: no runtime for \"nvidia\" is configured"),
                // kubernetes-sigs/dra-driver-nvidia-gpu#814: the kubelet's DRA driver registration lost after a plugin restart.
                Arguments.of("FailedPrepareDynamicResources", "Failed to prepare dynamic resources: prepare dynamic resources: DRA driver"
                        + " gpu.nvidia.com is not registered"),
                // NVIDIA/nvidia-container-toolkit#48: a running container's device cgroup reset by a systemd daemon-reload.
                Arguments.of("Unhealthy", "Readiness probe failed: Failed to initialize NVML: Unknown Error"),
                // nvidia-container-toolkit#1239: the node's CDI spec does not name the GPU the device plugin handed out.
                Arguments.of("Failed", "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed:"
                        + " could not apply required modification to OCI specification: error modifying OCI spec: failed to inject CDI"
                        + " devices: unresolvable CDI devices management.nvidia.com/gpu=GPU-0e1d8d3b-2f42-f447-0d49-eff2a5a67348"),
                // k8snetworkplumbingwg/sriov-cni: the VF the pod's network names is gone from the node.
                Arguments.of("FailedCreatePodSandBox", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network"
                        + " for sandbox \"5be1f0c2\": plugin type=\"multus\" name=\"multus-cni-network\" failed (add): error adding container to"
                        + " network \"sriov-roce-net\": SRIOV-CNI failed to load netconf: LoadConf(): failed to get VF information"));
    }

    @Test
    void aContainerTheKubeletRestartsForItsOwnFailingProbeIsTheApplications() {
        Diagnosis d = classify(Bundles.node(NODE).podEvent("assist", "vllm-0", "Killing",
                "Container vllm failed liveness probe, will be restarted"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertEquals(Family.NONE, classify(Bundles.node(NODE).podEvent("assist", "vllm-0", "Killing", "Stopping container vllm")).family(),
                "a container stopped for any other reason says nothing");
    }

    @Test
    void aNodeShuttingDownIsInfrastructureAndATerminatedPodForAnotherReasonSaysNothing() {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).nodeEvent("NodeShutdown",
                "Node is shutting down, type: ShutdownGracePeriod.", Bundles.AT)).family());
        assertEquals(Family.NONE, classify(Bundles.node(NODE).podEvent("ml", "train-0", "Terminated", "Pod was deleted by its owner")).family());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("infrastructureEvents")
    void aPodEventOfTheAcceleratorRuntimeIsInfrastructure(String reason, String message) {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).podEvent("ml", "train-0", reason, message)).family());
    }

    // --- logs: what the workload or a node agent printed ---

    static Stream<Arguments> applicationLines() {
        return Stream.of(
                Arguments.of("cuda-oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
                Arguments.of("device-side-assert", "RuntimeError: CUDA error: device-side assert triggered"),
                Arguments.of("python-traceback", "Traceback (most recent call last):"),
                Arguments.of("hip-oom", "RuntimeError: HIP out of memory. Tried to allocate 4.00 GiB"),
                Arguments.of("exec-format-error", "exec /usr/local/bin/python3: exec format error"),
                Arguments.of("nccl-invalid-usage", "h100-jax-01:1:1 [0] misc/socket.cc:484 NCCL WARN Bootstrap : no socket interface found"),
                Arguments.of("cuda-oom", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to"
                        + " allocate 17.2G on TPU"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("applicationLines")
    void aCrashLoopWithAnApplicationsLogSignatureIsTheApplicationsCitingTheLine(String signature, String line) {
        EvidenceBundle b = Bundles.pod("ml", "finetune-0", NODE).podCrashLooping("ml", "finetune-0").log("ml", "finetune-0", signature, line)
                .build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.LogMatch.class)), "cites the log line: " + d.evidenceIds());
    }

    @Test
    void aContainerOomKilledForHostMemoryIsTheApplications() {
        assertEquals(Family.APPLICATION, classify(Bundles.pod("ml", "etl-0", NODE).podTerminated("ml", "etl-0", "OOMKilled", 137)).family());
    }

    static Stream<Arguments> deviceLines() {
        return Stream.of(
                Arguments.of("gpu-lost", "RuntimeError: CUDA error: GPU is lost"),
                Arguments.of("uncorrectable-ecc", "RuntimeError: CUDA error: uncorrectable ECC error encountered"),
                Arguments.of("amd-gpu-fault", "amdgpu: GPU reset begin!"),
                Arguments.of("tpu-hardware", "TPU chip 2 (/dev/vfio/2): fatal hardware error: HBM uncorrectable ECC error"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("deviceLines")
    void aLogLineOfAFailingAcceleratorPointsAtTheDeviceWhenTheDevicesCannotBeRead(String signature, String line) {
        assertEquals(Family.DEVICE, classify(Bundles.pod("ml", "train-0", NODE).podCrashLooping("ml", "train-0")
                .gap(Source.METRICS, "exporter on " + NODE + " unreachable").log("ml", "train-0", signature, line)).family());
    }

    static Stream<Arguments> infrastructureLines() {
        return Stream.of(
                Arguments.of("nvml-mismatch", "Failed to initialize NVML: Driver/library version mismatch"),
                Arguments.of("tpu-runtime", "RuntimeError: TPU initialization failed: Failed to get TPU metadata"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("infrastructureLines")
    void aLogLineOfABrokenAcceleratorStackIsInfrastructure(String signature, String line) {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.pod("ml", "train-0", NODE).podCrashLooping("ml", "train-0")
                .log("ml", "train-0", signature, line)).family());
    }

    // --- AMD ---

    @Test
    void anIncreaseOfAnAmdGpusUncorrectableEccErrorsIsADeviceFault() {
        assertEquals(Family.DEVICE, classify(Bundles.node("mi300x-04").dcgm("gpu_ecc_uncorrect_total", 3, 2, 0)).family());
    }

    // --- missing evidence ---

    @Test
    void aMissingMetricsSourceLowersConfidenceAndIsSaid() {
        Bundles oom = Bundles.pod("ml", "finetune-0", NODE).podCrashLooping("ml", "finetune-0")
                .log("ml", "finetune-0", "cuda-oom", "torch.OutOfMemoryError: CUDA out of memory.");
        Diagnosis all = RULES.classify(oom.build());
        Diagnosis blind = RULES.classify(oom.gap(Source.METRICS, "dcgm-exporter on " + NODE + " refused the connection").build());

        assertEquals(all.family(), blind.family());
        assertTrue(blind.confidence() < all.confidence(), blind.confidence() + " vs " + all.confidence());
        assertTrue(blind.notes().stream().anyMatch(n -> n.contains("metrics") && n.contains("refused the connection")), "notes: "
                + blind.notes());
    }

    @Test
    void anUnreadableClusterKeepsEvenAFatalXidBelowActing() {
        Diagnosis d = classify(Bundles.node(NODE).xid(2, 79).gap(Source.CLUSTER, "cluster state unreadable: 503 Service Unavailable"));

        assertEquals(Family.DEVICE, d.family());
        assertTrue(d.confidence() < lowestActingConfidence(), "confidence " + d.confidence());
        assertTrue(d.notes().stream().anyMatch(n -> n.contains("503 Service Unavailable")), "notes: " + d.notes());
    }

    @Test
    void theSameBundleAlwaysGivesTheSameDiagnosis() {
        EvidenceBundle b = Bundles.node(NODE).holds(2, "ml", "train-0").xid(2, 79).podCrashLooping("ml", "train-0")
                .log("ml", "train-0", "nccl-timeout", "[Rank 3] Watchdog caught collective operation timeout").build();

        assertEquals(RULES.classify(b), RULES.classify(b));
    }

    // --- provenance: what a tenant writes is not proof about shared hardware ---

    @Test
    void aWorkloadThatLogsAGpuLostWhileThePlatformSeesHealthyGpusFailsOnItsOwn() {
        Diagnosis d = classify(Bundles.pod("chat", "assistant-0", NODE).gpus(8, 8).holds(2, "chat", "assistant-0").xid(2, 0)
                .podCrashLooping("chat", "assistant-0")
                .log("chat", "assistant-0", "gpu-lost", "Unable to determine the device handle for GPU 0000:10:1C.0: GPU is lost"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void aCopiedKernelXidLineInAWorkloadLogIsNotADeviceFault() {
        Diagnosis d = classify(Bundles.pod("research", "rollout-0", NODE).gpus(8, 8).podCrashLooping("research", "rollout-0")
                .log("research", "rollout-0", "xid-kernel-line", "NVRM: Xid (PCI:0000:9a:00): 79, pid=1912, GPU has fallen off the bus."));

        assertFalse(d.family() == Family.DEVICE, d.family() + ": " + d.cause());
    }

    @Test
    void aNodeXidEventWrittenInATenantNamespaceIsNotADeviceFault() {
        Diagnosis d = classify(Bundles.node(NODE).gpus(8, 8)
                .nodeEventWrittenBy("chat", "XidError", "NVRM: Xid (PCI:0000:10:1c): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void anXidServedByALookAlikeExporterIsNotADeviceFault() {
        Diagnosis d = classify(Bundles.node(NODE).gpus(8, 8).xidFromALookAlikeExporter(3, 79));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void aWorkloadsGpuLostCountsForTheDeviceWhenThePlatformShowsTheFaultToo() {
        Diagnosis d = classify(Bundles.pod("chat", "assistant-0", NODE).gpus(8, 7).podCrashLooping("chat", "assistant-0")
                .log("chat", "assistant-0", "gpu-lost", "GPU is lost"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
    }

    // --- node-level health agents (class 3) ---

    @Test
    void aNodeAgentsConditionRelayingAKernelXidLineIsDecodedByTheCatalogue() {
        Diagnosis d = classify(Bundles.node(NODE).condition("SysLogsXIDError", "True", "SysLogsXIDErrorIsNotHealthy",
                "ErrorCode:79 PCI:0000:9a:00 GPU_UUID:GPU-bb41 MESSAGE=NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>,"
                        + " GPU has fallen off the bus. Recommended Action=RESTART_BM;"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.cause().contains("79"), d.cause());
    }

    @Test
    void xid154AskingForAGpuResetIsADeviceFaultNotDegradation() {
        Diagnosis d = classify(Bundles.node(NODE).kernelXid(154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.degradation(), d.cause());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
    }

    @Test
    void xid154SayingNoRecoveryActionIsNeededIsNoFault() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).kernelXid(154, "GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)"))
                .family());
    }

    // --- broken workloads and serving frameworks (classes 8, 12) ---

    @Test
    void aContainerWaitingOnAnImageThatCannotBePulledIsTheApplications() {
        assertEquals(Family.APPLICATION, classify(Bundles.pod("nlp", "api-0", NODE).gpus(8, 8).podWaiting("nlp", "api-0", "ImagePullBackOff"))
                .family());
    }

    @Test
    void aPodAskingOneNodeForMoreAcceleratorsThanAnyNodeHasIsTheApplications() {
        Diagnosis d = classify(Bundles.pod("ml", "lora-0", NODE).noNode()
                .pending("ml", "lora-0", "RequestExceedsEveryNode", "requests 16 nvidia.com/gpu in one pod; the largest node offers 8", null));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void aServingFrameworkThatCannotLoadItsModelIsTheApplications() {
        assertEquals(Family.APPLICATION, classify(Bundles.pod("inference", "triton-0", NODE).gpus(8, 8).podCrashLooping("inference", "triton-0")
                .log("inference", "triton-0", "serving-model-load", "error: creating server: Internal - failed to load all models")).family());
    }

    // --- AMD (class 4) ---

    @Test
    void aHipMemoryAccessFaultOfOneProgramIsTheApplications() {
        assertEquals(Family.APPLICATION, classify(Bundles.pod("research", "bench-0", NODE).podCrashLooping("research", "bench-0")
                .log("research", "bench-0", "hip-memory-access-fault", "Memory access fault by GPU node-6 (Agent handle: 0x55d0) on address"
                        + " 0x7fa4808cb000. Reason: Page not present or supervisor privilege.")).family());
    }

    // --- platform signals of other agents (class 11) ---

    @Test
    void aHungNvidiaKernelTaskRelayedByNodeProblemDetectorIsInfrastructure() {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).gpus(8, 8)
                .nodeEvent("TaskHung", "INFO: task nvc:[driver]:5403 blocked for more than 120 seconds.", Bundles.AT)).family());
    }

    @Test
    void aFabricManagerFailureSaidOnceStillHoldsAnHourLater() {
        Diagnosis d = classify(Bundles.node(NODE).gpus(8, 8).nodeEvent("FabricManagerFailed",
                "nvidia-fabricmanager.service: Failed with result 'exit-code'.", Bundles.AT.minusSeconds(3600)));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    // --- MIG (class 10) ---

    @Test
    void aMigConfigurationTheMigManagerFailedToApplyIsInfrastructure() {
        assertEquals(Family.INFRASTRUCTURE, classify(Bundles.node(NODE).nodeLabel("nvidia.com/mig.config.state", "failed")).family());
    }

    @Test
    void aMigConfigurationAppliedIsNoFault() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).nodeLabel("nvidia.com/mig.config.state", "success")).family());
    }

    // --- TPU slices (class 5) ---

    @Test
    void oneSliceHostWithoutItsChipsWhileItsPeersHaveAllTheirsIsADeviceFault() {
        Diagnosis d = classify(Bundles.node("tpu-host-3").capacity("google.com/tpu", 4, 0, 4).sliceHost("tpu-v5e-b", 4, 0, 4, 3));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
    }

    @Test
    void everySliceHostWithoutChipsIsNotOneHostsHardware() {
        Diagnosis d = classify(Bundles.node("tpu-host-3").capacity("google.com/tpu", 4, 0, 4).sliceHost("tpu-v5e-b", 4, 0, 4, 0));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    // --- repeats on one GPU across processes (class 6) ---

    @Test
    void oneXid31FromDifferentProcessesOnOneGpuIsTheDevice() {
        Diagnosis d = classify(Bundles.node(NODE)
                .nodeEvent("XidError", "NVRM: Xid (PCI:0000:3a:00): 31, pid=41877, name=python, Ch 00000007, MMU Fault", Bundles.AT.minusSeconds(7200))
                .nodeEvent("XidError", "NVRM: Xid (PCI:0000:3a:00): 31, pid=77310, name=python3, Ch 00000008, MMU Fault", Bundles.AT));

        assertEquals(Family.DEVICE, d.family(), d.cause());
    }

    @Test
    void oneProcessHittingXid13TwiceIsStillTheApplications() {
        Diagnosis d = classify(Bundles.node(NODE)
                .nodeEvent("XidError", "NVRM: Xid (PCI:0000:2a:00): 13, pid=2519562, name=python3, Graphics SM Warp Exception", Bundles.AT)
                .nodeEvent("XidError", "NVRM: Xid (PCI:0000:2a:00): 13, pid=2519562, name=python3, Graphics Exception: ChID 000c", Bundles.AT));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void aCloudAgentsXidConditionNamingTheCodeIsDecodedByTheCatalogue() {
        Diagnosis d = classify(Bundles.node(NODE).condition("XIDErrors", "True", "XIDErrorsDetected", "XID 48 detected on GPU 0000:3b:00.0"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.cause().contains("48"), d.cause());
    }

    // --- the blind round e-*: classes of failure ---

    @Test
    void aFatalSxidANodeAgentRelaysIsADeviceFaultOfTheWholeNode() {
        Diagnosis d = classify(Bundles.node(NODE).condition("SysLogsSXIDError", "True", "SysLogsSXIDErrorIsNotHealthy",
                "ErrorCode:24007 NVSwitch:3 kernel: nvidia-nvswitch3: SXid (PCI:0000:86:00.0): 24007, Fatal, Link 44 sourcetrack timeout error"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
        assertTrue(d.supporting().get(0).group().contains(Classifier.NODE_WIDE), "every GPU behind the switch: " + d.supporting().get(0).group());
    }

    @Test
    void aNonFatalSxidIsNoFaultAlone() {
        Diagnosis d = classify(Bundles.node(NODE).condition("SysLogsSXIDError", "True", "SysLogsSXIDErrorIsNotHealthy",
                "kernel: nvidia-nvswitch1: SXid (PCI:0000:05:00.0): 20034, Non-fatal, Link 32 LTSSM Fault Up"));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void anAmdgpuInitFailureIsTheNodesDriverStackWhateverTheAgentCallsItsEvent() {
        Diagnosis d = classify(Bundles.node(NODE).nodeEvent("KernelOops", "kernel: amdgpu 0000:05:00.0: Direct firmware load for"
                + " amdgpu/psp_13_0_6_sos.bin failed with error -2; kernel: amdgpu 0000:05:00.0: amdgpu: Fatal error during GPU init", Bundles.AT));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.supporting().get(0).group().startsWith(Classifier.CANNOT_SERVE), d.supporting().get(0).group());
    }

    @Test
    void aServingFrameworksFailedLoadQuotingAnOldDriverIsTheDriversSymptom() {
        Diagnosis d = classify(Bundles.pod("search", "triton-0", NODE).batch("Deployment", "search", "triton", "triton-0")
                .podCrashLooping("search", "triton-0")
                .log("search", "triton-0", "cuda-driver-insufficient", "Unable to allocate pinned system memory: CUDA driver version is"
                        + " insufficient for CUDA runtime version")
                .log("search", "triton-0", "serving-model-load", "error: creating server: Internal - failed to load all models"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.findings().stream().anyMatch(f -> f.group().equals(Classifier.CONSEQUENCE + "log-serving-model-load")),
                "the failed load is kept as the driver's consequence: " + d.findings());
    }

    @Test
    void aServingFrameworksFailedLoadAloneStaysTheWorkloads() {
        Diagnosis d = classify(Bundles.pod("search", "triton-0", NODE).podCrashLooping("search", "triton-0")
                .log("search", "triton-0", "serving-model-load", "error: creating server: Internal - failed to load all models"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void ncclOutOfSharedMemoryIsThePodSpecsForItsOwnersNotARestart() {
        Diagnosis d = classify(Bundles.pod("assist", "vllm-0", NODE).podCrashLooping("assist", "vllm-0")
                .log("assist", "vllm-0", "nccl-shm-exhausted", "l40s-serve-07:89:89 [2] misc/shmutils.cc:72 NCCL WARN Error: failed to extend"
                        + " /dev/shm/nccl-Jq8Kf1 to 9637892 bytes, error: No space left on device (28)"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertFalse(d.restartHelps(), "a restart gets the same /dev/shm");
    }

    @Test
    void aNodeBehindItsPoolsDriverIsOnlyAHintAlone() {
        Diagnosis d = classify(Bundles.node(NODE).behindPool("nvidia.com/cuda.driver.major", "535", "570", 2));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void aNodeBehindItsPoolsDriverCorroboratesAWorkloadsDriverTooOldLine() {
        EvidenceBundle b = Bundles.pod("search", "triton-0", NODE).batch("Deployment", "search", "triton", "triton-0")
                .behindPool("nvidia.com/cuda.driver.major", "535", "570", 2)
                .log("search", "triton-0", "cuda-driver-insufficient", "CUDA driver version is insufficient for CUDA runtime version").build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        Finding platform = d.findings().stream().filter(f -> f.group().equals("behind-pool")).findFirst().orElseThrow();
        assertTrue(platform.weight() >= 0.5, "the platform's half weighs as the workload's: " + platform.weight());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.BehindPool.class)), "cites the node label " + d.evidenceIds());
    }

    @Test
    void aNodeWithoutGpusDuringAPlannedMigChangeIsNoFault() {
        Diagnosis d = classify(Bundles.node(NODE).capacity("nvidia.com/gpu", 0, 0, 8)
                .nodeLabel("nvidia.com/mig.config.state", "pending").nodeLabel("nvidia.com/gpu.deploy.device-plugin", "paused-for-mig-change"));

        assertEquals(Family.NONE, d.family(), d.cause());
    }

    @Test
    void theExporterGoingAwayOnANodeItsProvisionerOrTheAutoscalerIsRemovingIsNoFault() {
        Bundles down = Bundles.node(NODE).agentCrashLooping(PodRole.EXPORTER, "gpu-operator", "nvidia-dcgm-exporter-r8k2v");
        assertEquals(Family.INFRASTRUCTURE, classify(down).family(), "on a node that stays, the exporter down is the node's fault");

        for (Bundles leaving : java.util.List.of(
                Bundles.node(NODE).taint("karpenter.sh/disrupted", "NoSchedule"),
                Bundles.node(NODE).taint("karpenter.sh/disruption", "disrupting", "NoSchedule"),
                Bundles.node(NODE).taint("ToBeDeletedByClusterAutoscaler", "1764792571", "NoSchedule"),
                Bundles.node(NODE).taint("cloud.google.com/impending-node-termination", "true", "NoSchedule"),
                Bundles.node(NODE).taint("aws-node-termination-handler/spot-itn", "1764792571", "NoSchedule"),
                Bundles.node(NODE).taint("aws-node-termination-handler/asg-lifecycle-termination", "1764792571", "NoSchedule"),
                Bundles.node(NODE).beingDeleted("karpenter.sh/termination"))) {
            Diagnosis d = classify(leaving.agentCrashLooping(PodRole.EXPORTER, "gpu-operator", "nvidia-dcgm-exporter-r8k2v")
                    .capacity("nvidia.com/gpu", 0, 0, 4).notReady());
            assertEquals(Family.NONE, d.family(), d.cause() + " " + d.findings());
            assertTrue(d.findings().stream().anyMatch(f -> f.group().startsWith(Classifier.LEAVING)), d.findings().toString());
        }
        Diagnosis candidate = classify(Bundles.node(NODE).taint("DeletionCandidateOfClusterAutoscaler", "1764792571", "PreferNoSchedule")
                .agentCrashLooping(PodRole.EXPORTER, "gpu-operator", "nvidia-dcgm-exporter-r8k2v"));
        assertEquals(Family.INFRASTRUCTURE, candidate.family(), "a scale-down candidate may stay: " + candidate.cause());
        Diagnosis rebalance = classify(Bundles.node(NODE).taint("aws-node-termination-handler/rebalance-recommendation", "1764792571",
                "NoSchedule").agentCrashLooping(PodRole.EXPORTER, "gpu-operator", "nvidia-dcgm-exporter-r8k2v"));
        assertEquals(Family.INFRASTRUCTURE, rebalance.family(), "a rebalance recommendation is no removal: " + rebalance.cause());
    }

    @Test
    void aNodeStillDeletingHoursLaterIsAStuckRemovalAndItsAgentsFaultsCount() {
        Diagnosis d = classify(Bundles.node(NODE).deletingFor(java.time.Duration.ofHours(3), "karpenter.sh/termination")
                .agentCrashLooping(PodRole.EXPORTER, "gpu-operator", "nvidia-dcgm-exporter-r8k2v"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause() + " " + d.findings());
        assertTrue(d.findings().stream().anyMatch(f -> f.group().equals("stuck-deletion")), d.findings().toString());
        assertTrue(d.findings().stream().noneMatch(f -> f.group().startsWith(Classifier.LEAVING)), "no longer a removal under way");
    }

    @Test
    void aFreshFatalXidOnANodeBeingRemovedIsStillADeviceFault() {
        Diagnosis d = classify(Bundles.node(NODE).taint("karpenter.sh/disrupted", "NoSchedule").beingDeleted("karpenter.sh/termination")
                .xid(1, 79));

        assertEquals(Family.DEVICE, d.family(), d.cause());
    }

    @Test
    void aNodeWithoutGpusAfterAFailedMigChangeIsInfrastructure() {
        Diagnosis d = classify(Bundles.node(NODE).capacity("nvidia.com/gpu", 0, 0, 8).nodeLabel("nvidia.com/mig.config.state", "failed"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    @Test
    void aNodeWithoutGpusWhileTheDriverUpgradeControllerWorksOnItIsNoFault() {
        for (String state : java.util.List.of("cordon-required", "drain-required", "pod-restart-required", "validation-required")) {
            Diagnosis d = classify(Bundles.node(NODE).capacity("nvidia.com/gpu", 4, 0, 4)
                    .nodeLabel("nvidia.com/gpu-driver-upgrade-state", state));
            assertEquals(Family.NONE, d.family(), state + ": " + d.cause());
        }
    }

    @Test
    void aNodeWithoutGpusAfterAFailedOrNotYetStartedDriverUpgradeIsInfrastructure() {
        for (String state : java.util.List.of("upgrade-failed", "upgrade-required", "upgrade-done")) {
            Diagnosis d = classify(Bundles.node(NODE).capacity("nvidia.com/gpu", 4, 0, 4)
                    .nodeLabel("nvidia.com/gpu-driver-upgrade-state", state));
            assertEquals(Family.INFRASTRUCTURE, d.family(), state + ": " + d.cause());
        }
    }

    @Test
    void aNodeOfferingNoneOfWhatAPendingPodWaitsForIsInfrastructure() {
        Diagnosis d = classify(Bundles.node(NODE).unoffered("rdma/rdma_shared_device_a", 1, "nlp/bert-worker-0"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
    }

    @Test
    void aGangMemberIdleWhileItsPeerIsUnscheduledWaitsItDoesNotHang() {
        Bundles waiting = Bundles.node(NODE).holds(0, "nlp", "bert-master-0").dcgm("DCGM_FI_DEV_GPU_UTIL", 0, 0)
                .gang("PyTorchJob", "nlp", "bert", "bert-master-0");
        Bundles alone = Bundles.node(NODE).holds(0, "nlp", "bert-master-0").dcgm("DCGM_FI_DEV_GPU_UTIL", 0, 0)
                .gang("PyTorchJob", "nlp", "bert", "bert-master-0");

        Diagnosis d = classify(waiting.pending("nlp", "bert-worker-0", "Unschedulable", "0/2 nodes are available", "nlp/bert"));

        assertEquals(Family.NONE, d.family(), d.cause());
        assertEquals(Family.APPLICATION, classify(alone).family(), "with every member placed, idle GPUs are a hang");
    }

    @Test
    void aFailingNodeAgentsRecentRolloutIsOneReasonMoreAndNotHistory() {
        Diagnosis d = classify(Bundles.node(NODE).agentCrashLoopingAsPlatform(PodRole.DRIVER, "gpu-operator", "nvidia-driver-daemonset-8d014")
                .rollout("gpu-operator", "nvidia-driver-daemonset", Bundles.AT.minusSeconds(40 * 60)));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.findings().stream().anyMatch(f -> f.group().equals("event-NewRevision") && f.weight() >= 0.5),
                "a revision holds until changed: its age is not history: " + d.findings());
    }

    @Test
    void aFabricManagerThatFailedInTheDriverContainerExplainsCudaNotInitialisingOnTheNode() {
        Diagnosis d = classify(Bundles.pod("vision", "vit-0", NODE).batch("Job", "vision", "vit", "vit-0").podCrashLooping("vision", "vit-0")
                .log("vision", "vit-0", "python-traceback", "[rank3]: Traceback (most recent call last):")
                .log("vision", "vit-0", "cuda-system-not-initialized", "[rank3]: RuntimeError: CUDA error: system not yet initialized")
                .agentLog(PodRole.DRIVER, "gpu-operator", "nvidia-driver-daemonset-86ad7", "fabric-manager-failed",
                        "\"/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg\" failed! Exit code: 1"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.cause().contains("fabric manager"), d.cause());
    }

    @Test
    void nodeAgentsThatFoundNoDeviceSayWhyInTheirOwnLogs() {
        Diagnosis rdma = classify(Bundles.node(NODE).agentLog(PodRole.OPERAND, "network-operator", "rdma-shared-dp-ds-5f7c8",
                "rdma-device-missing", "error creating new device: \"missing RDMA device spec for device 0000:18:00.0, RDMA device \\\"rdma_cm\\\" not found\""));
        Diagnosis driver = classify(Bundles.node(NODE).agentLog(PodRole.DRIVER, "gpu-operator", "nvidia-driver-daemonset-8d014",
                "driver-install-failed", "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when"));

        assertEquals(Family.INFRASTRUCTURE, rdma.family(), rdma.cause());
        assertFalse(rdma.restartHelps(), "the kernel module is still missing after a restart");
        assertEquals(Family.INFRASTRUCTURE, driver.family(), driver.cause());
        assertFalse(driver.restartHelps(), "the module still does not build after a restart");
    }

    @Test
    void aMultiHostTpuJobWhoseHostsDoNotKnowEachOtherIsItsOwnersConfiguration() {
        Diagnosis d = classify(Bundles.workload("research", "jobset/maxtext", NODE).podCrashLooping("research", "maxtext-0")
                .log("research", "maxtext-0", "tpu-worker-hostnames", "WARNING:absl:TPU_WORKER_HOSTNAMES is not set; assuming a single-host slice"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertTrue(d.cause().contains("TPU_WORKER_HOSTNAMES"), d.cause());
    }

    @Test
    void aFatalSxidLineInATenantsLogIsAClaimNotAFault() {
        Diagnosis d = classify(Bundles.pod("team-orca", "ft-0", NODE).podCrashLooping("team-orca", "ft-0")
                .log("team-orca", "ft-0", "nvswitch-fatal-sxid", "kernel: nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 24007, Fatal, Link 12"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertTrue(d.findings().stream().anyMatch(f -> Classifier.TENANT_CLAIM.equals(f.group())), "named as a tenant's claim: " + d.findings());
    }

    // --- a GPU awaiting its reset, health agents' labels, the storage path, admission, a runtime that starts nothing ---

    @Test
    void aPageRetirementPendingAResetIsADeviceFaultAwaitingTheResetNotDegradation() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_RETIRED_PENDING", 1, 1, 0));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertFalse(d.degradation(), "the retirement applies only at the GPU's next reset: the node is kept from new work until then");
        assertTrue(d.supporting().stream().anyMatch(f -> f.group().startsWith(Classifier.RESET_PENDING)), d.findings().toString());
    }

    @ParameterizedTest(name = "{0}={1}")
    @org.junit.jupiter.params.provider.CsvSource({"autopilot.ibm.com/gpuhealth, EVICT",
            "autopilot.ibm.com/dcgm.level.3, ERR_2026-12-03_05.58.41UTC_page_retirement_row_remap.2"})
    void aPlatformHealthAgentsFailingVerdictInItsNodeLabelIsADeviceFaultClearEnoughToCordon(String key, String value) {
        EvidenceBundle b = Bundles.node(NODE).nodeLabel(key, value).build();

        Diagnosis d = RULES.classify(b);

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.evidenceIds().contains(idOf(b, Facts.NodeLabel.class)), "cites the label " + d.evidenceIds());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
    }

    @ParameterizedTest(name = "{0}={1}")
    @org.junit.jupiter.params.provider.CsvSource({"autopilot.ibm.com/gpuhealth, PASS", "autopilot.ibm.com/gpuhealth, TESTING",
            "autopilot.ibm.com/dcgm.level.3, PASS_2026-12-02_21.14.09UTC"})
    void aPlatformHealthAgentsPassingOrRunningVerdictIsNoFault(String key, String value) {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).nodeLabel(key, value)).family());
    }

    @Test
    void aVolumeStillAttachedToTheNodeThePodLeftIsInfrastructure() {
        Diagnosis d = classify(Bundles.pod("ml", "sft-trainer-0", NODE).podEvent("ml", "sft-trainer-0", "FailedAttachVolume",
                "Multi-Attach error for volume \"pvc-9dbdb7f1\" Volume is already exclusively attached to one node and can't be attached to another"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.cause().contains("still attached to another node"), d.cause());
    }

    @Test
    void aPodTheKubeletRejectedAtAdmissionIsInfrastructureOfItsNodeHoweverLongAgo() {
        Diagnosis d = classify(Bundles.node(NODE).rejected("ci", "runner-4gpu-x7q2m", "TopologyAffinityError",
                "Pod was rejected: Resources cannot be allocated with Topology locality"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.cause().contains("NUMA"), d.cause());
    }

    @Test
    void aPodRejectedForAReasonNoRowKnowsIsNoFinding() {
        assertEquals(Family.NONE, classify(Bundles.node(NODE).rejected("ci", "runner-1", "SomeFutureAdmissionError", "Pod was rejected: …")).family());
    }

    static final String HOOK_ERROR = "failed to create containerd task: OCI runtime create failed: error running hook #0: error running hook:"
            + " exit status 1, stdout: , stderr: nvidia-container-cli: mount error: file creation failed: /run/nvidia-persistenced/socket:"
            + " no such device or address: unknown";

    @Test
    void theRuntimesErrorInContainersOfSeveralWorkloadsOnTheNodeMeansTheNodeCannotServe() {
        Diagnosis d = classify(Bundles.pod("speech", "asr-0", NODE).podCannotStart("speech", "asr-0", HOOK_ERROR, io.acceltriage.evidence.Trust.PLATFORM)
                .podCannotStart("search", "rerank-0", HOOK_ERROR, io.acceltriage.evidence.Trust.PLATFORM));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.supporting().stream().anyMatch(f -> f.group().startsWith(Classifier.CANNOT_SERVE)), d.findings().toString());
    }

    @Test
    void theRuntimesErrorInOneWorkloadsContainerAloneIsInfrastructureTheNodeMayStillServe() {
        Diagnosis d = classify(Bundles.pod("speech", "asr-0", NODE).podCannotStart("speech", "asr-0", HOOK_ERROR, io.acceltriage.evidence.Trust.TENANT));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.supporting().stream().noneMatch(f -> f.group().startsWith(Classifier.CANNOT_SERVE)), d.findings().toString());
    }
}
