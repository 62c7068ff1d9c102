package io.acceltriage.diagnosis;

import static io.acceltriage.diagnosis.ClassifierTest.NODE;
import static io.acceltriage.diagnosis.ClassifierTest.classify;
import static io.acceltriage.diagnosis.ClassifierTest.minConfidence;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.evidence.PodRole;
import org.junit.jupiter.api.Test;

/**
 * Findings about one event read together: a specific platform reading governs the generic counters and lines
 * it implies, a fatal platform fault explains the workload's failures on its node, a node agent's own troubles
 * are the platform's, and the retired-page limit and the old name of the clock-reasons field are read as such.
 */
class SameEventTest {

    static Bundles servingPodOnGpu1() {
        return Bundles.pod("serve", "vllm-0", NODE).holds(1, "serve", "vllm-0").serving("deployment", "serve", "vllm", 3, 2, "vllm-0");
    }

    @Test
    void aContainedEccXidGovernsTheDbeCountAndTheEccLineOfTheSameGpu() {
        Diagnosis d = classify(servingPodOnGpu1().xid(1, 94).dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 1, 0)
                .log("serve", "vllm-0", "uncorrectable-ecc", "RuntimeError: CUDA error: uncorrectable ECC error encountered"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.nodeMayStay(), "contained to the application: the node stays: " + d.findings());
        assertTrue(d.findings().stream().filter(f -> f.group().equals("gpu_ecc_dbe_volatile")).allMatch(f -> f.contained() && f.weight() <= 0.6),
                "the DBE count is the contained error's: " + d.findings());
    }

    @Test
    void theSameDbeCountWithoutTheContainedXidStillFencesTheNode() {
        Diagnosis d = classify(servingPodOnGpu1().dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 1, 0)
                .log("serve", "vllm-0", "uncorrectable-ecc", "RuntimeError: CUDA error: uncorrectable ECC error encountered"));

        assertFalse(d.nodeMayStay(), d.findings().toString());
    }

    @Test
    void aContainedXidOnAnotherGpuDoesNotExplainThisGpusDbeCount() {
        Diagnosis d = classify(servingPodOnGpu1().xid(1, 94).dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 5, 1, 0));

        assertFalse(d.nodeMayStay(), "GPU 5's uncorrectable error is its own: " + d.findings());
    }

    @Test
    void aFatalPlatformXidIsNotDilutedByTheWorkloadsOwnFailuresOnThatNode() {
        Diagnosis d = classify(servingPodOnGpu1().kernelXid(120, "GSP task timeout @ pc:0x4bd36ec, task: 1").podCrashLooping("serve", "vllm-0")
                .log("serve", "vllm-0", "serving-model-load", "failed to load 'tensorrt_llm' version 1: Internal: unexpected error"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "the workload's failures are the fault's consequences: " + d.confidence()
                + " " + d.findings());
        assertTrue(d.findings().stream().filter(f -> f.family() == Family.APPLICATION).allMatch(f -> f.group().startsWith(Classifier.CONSEQUENCE)),
                d.findings().toString());
    }

    @Test
    void aContainedEccLineANodeAgentRelaysGovernsTheDbeCountOfItsNode() {
        Diagnosis d = classify(servingPodOnGpu1().kernelXid(94, "Contained: SM (0x1). RST: No, D-RST: No")
                .dcgm("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 1, 0));

        assertTrue(d.nodeMayStay(), "the kernel's XID 94 is the same contained error: " + d.findings());
    }

    @Test
    void theOtherMembersOfAGangWaitingOnAFaultyMemberAreConsequencesToo() {
        Bundles b = Bundles.workload("research", "pytorchjob/llm", NODE)
                .gangAcross("pytorchjob", "research", "llm", "llm-worker-0", "gpu-h100-04", "llm-worker-1")
                .kernelXid(79, "GPU has fallen off the bus.");
        // The rank on the other node times out in its collective, waiting for the member on the faulty node.
        Diagnosis d = classify(b.log("research", "llm-worker-1", "nccl-timeout",
                "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE)"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.findings().stream().filter(f -> f.family() == Family.APPLICATION).allMatch(f -> f.group().startsWith(Classifier.CONSEQUENCE)),
                "the other rank's timeout is the fault's consequence: " + d.findings());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), d.confidence() + " " + d.findings());
    }

    @Test
    void theWorkloadsFailureStaysItsOwnWithoutAPlatformFaultOnItsNode() {
        Diagnosis d = classify(servingPodOnGpu1().podCrashLooping("serve", "vllm-0")
                .log("serve", "vllm-0", "serving-model-load", "failed to load 'tensorrt_llm' version 1: Internal: unexpected error"));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
    }

    @Test
    void aNodeAgentsImageThatCannotBePulledIsTheNodesInfrastructureNotATenantsWorkload() {
        Diagnosis d = classify(Bundles.node(NODE).agentPod(PodRole.DEVICE_PLUGIN, "gpu-operator", "nvidia-device-plugin-8kq4v")
                .podEvent("gpu-operator", "nvidia-device-plugin-8kq4v", "Failed",
                        "Failed to pull image \"nvcr.io/nvidia/k8s-device-plugin:v0.17.5\": rpc error: code = NotFound desc = not found"));

        assertEquals(Family.INFRASTRUCTURE, d.family(), d.cause());
        assertTrue(d.findings().stream().noneMatch(f -> f.family() == Family.APPLICATION), d.findings().toString());
    }

    @Test
    void retiredPagesAtTheLimitMakeTheGpuDueForReplacementClearEnoughToCordon() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_RETIRED_SBE", 1, 40, 40).dcgm("DCGM_FI_DEV_RETIRED_DBE", 1, 24, 24));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.supporting().stream().anyMatch(f -> f.group().startsWith(Classifier.REPLACE_DEVICE)), d.findings().toString());
        assertTrue(d.confidence() >= minConfidence("cordon-node"), "confidence " + d.confidence());
    }

    @Test
    void theClockReasonsUnderDcgmExporter3sOldNameAreReadLikeTheNewOne() {
        Diagnosis d = classify(Bundles.node(NODE).dcgm("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 6, 0x40));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.degradation(), "hardware thermal slowdown: slow, not broken");
    }
}
