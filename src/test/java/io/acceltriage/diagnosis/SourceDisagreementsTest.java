package io.acceltriage.diagnosis;

import static io.acceltriage.diagnosis.ClassifierTest.RULES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.evidence.EvidenceBundle;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the classifier says sources disagree (the typed signal the live responder asks the model to
 * investigate), and when it does not: Kubernetes' device health against the exporter's readings of
 * the same node or GPU, and platform against tenant sources.
 */
class SourceDisagreementsTest {

    private static List<Disagreement> of(EvidenceBundle b) {
        return RULES.classify(b).disagreements();
    }

    @Test
    void aGpuKubernetesReportsUnhealthyWhileTheExporterReadsTheNodeCleanIsADisagreement() {
        EvidenceBundle b = Bundles.node("gpu-7").holds(2, "ml", "train-0").gpus(8, 7).deviceHealth("ml", "train-0", "GPU-2", "Unhealthy")
                .dcgm("DCGM_FI_DEV_XID_ERRORS", 2, 0, 0).dcgm("DCGM_FI_DEV_GPU_TEMP", 2, 61).build();
        List<Disagreement> d = of(b);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Disagreement.Between.KUBERNETES_AND_EXPORTER, d.get(0).between());
        assertTrue(d.get(0).detail().startsWith("Kubernetes reports a device fault on gpu-7"), d.get(0).detail());
        assertTrue(d.get(0).detail().contains("show none"), d.get(0).detail());
    }

    @Test
    void aGpuBothKubernetesAndTheExporterReportFaultyIsNoDisagreement() {
        EvidenceBundle b = Bundles.node("gpu-7").holds(2, "ml", "train-0").xid(2, 79).gpus(8, 7)
                .deviceHealth("ml", "train-0", "GPU-2", "Unhealthy").build();
        assertEquals(List.of(), of(b));
    }

    @Test
    void kubernetesAloneWithNoExporterReadIsAMissingSourceNotADisagreement() {
        EvidenceBundle b = Bundles.node("gpu-7").gpus(8, 7).deviceHealth("ml", "train-0", "GPU-2", "Unhealthy").build();
        assertEquals(List.of(), of(b));
    }

    @Test
    void aFatalXidOnAGpuKubernetesReportsHealthyIsADisagreement() {
        EvidenceBundle b = Bundles.node("gpu-7").holds(2, "ml", "train-0").xid(2, 48).gpus(8, 8)
                .deviceHealth("ml", "train-0", "GPU-2", "Healthy").build();
        List<Disagreement> d = of(b);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Disagreement.Between.KUBERNETES_AND_EXPORTER, d.get(0).between());
        assertTrue(d.get(0).detail().contains("Kubernetes reports GPU GPU-2 Healthy"), d.get(0).detail());
    }

    @Test
    void aTenantsClaimOfAHardwareFaultNoPlatformSourceShowsIsADisagreement() {
        EvidenceBundle b = Bundles.pod("ml", "train-0", "gpu-7").holds(0, "ml", "train-0").dcgm("DCGM_FI_DEV_XID_ERRORS", 0, 0, 0)
                .log("ml", "train-0", "gpu-lost", "Unable to determine the device handle for GPU0000:1B:00.0: GPU is lost.").build();
        List<Disagreement> d = of(b);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Disagreement.Between.PLATFORM_AND_TENANT, d.get(0).between());
        assertTrue(d.get(0).detail().contains("claimed only by a tenant source"), d.get(0).detail());
    }

    @Test
    void platformAndTenantPointingAtTheSameFamilyIsNoDisagreement() {
        EvidenceBundle b = Bundles.pod("ml", "train-0", "gpu-7").holds(0, "ml", "train-0").xid(0, 79)
                .log("ml", "train-0", "gpu-lost", "Unable to determine the device handle for GPU0000:1B:00.0: GPU is lost.").build();
        assertEquals(List.of(), of(b));
    }
}
