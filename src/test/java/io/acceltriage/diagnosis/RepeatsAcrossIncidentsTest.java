package io.acceltriage.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Toolsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * #19 class 6 across incidents: an XID 13/31 on a GPU meets that GPU's past in the fault history
 * (read into the bundle as {@code PastXid} evidence). Codes, process count and window come from
 * {@code knowledge/gpu-history.yaml}, loaded as production loads it.
 */
class RepeatsAcrossIncidentsTest {

    static final String NODE = "gpu-h100-03";
    static final GpuRepeats KNOWLEDGE = GpuRepeats.load();

    static Diagnosis classify(Bundles b) {
        return ClassifierTest.RULES.classify(b.build());
    }

    @ParameterizedTest
    @ValueSource(ints = {13, 31})
    void theSameXidFromAnotherPodADayEarlierIsTheGpu(int code) {
        Bundles b = Bundles.node(NODE).holds(4, "ml", "train-b-0").xid(4, code)
                .pastXid(4, code, "research/eval-a-3", "inc-yesterday", Bundles.AT.minus(Duration.ofDays(1)));
        String past = b.lastId();
        Diagnosis d = classify(b);
        assertEquals(Family.DEVICE, d.family(), d.findings().toString());
        assertTrue(d.evidenceIds().contains(past), "the verdict cites the remembered fault: " + d.evidenceIds());
        assertTrue(d.cause().contains("across 2 incidents"), d.cause());
    }

    @Test
    void theSamePodFaultingAgainIsStillItsOwn() {
        Diagnosis d = classify(Bundles.node(NODE).holds(4, "ml", "train-b-0").xid(4, 31)
                .pastXid(4, 31, "ml/train-b-0", "inc-yesterday", Bundles.AT.minus(Duration.ofDays(1))));
        assertEquals(Family.APPLICATION, d.family());
    }

    @Test
    void aFaultOlderThanTheWindowIsForgotten() {
        Diagnosis d = classify(Bundles.node(NODE).holds(4, "ml", "train-b-0").xid(4, 31)
                .pastXid(4, 31, "research/eval-a-3", "inc-long-ago", Bundles.AT.minus(KNOWLEDGE.window()).minusSeconds(60)));
        assertEquals(Family.APPLICATION, d.family());
    }

    @Test
    void aPastFaultOnAnotherGpuOfTheNodeDoesNotCount() {
        Diagnosis d = classify(Bundles.node(NODE).holds(4, "ml", "train-b-0").xid(4, 31)
                .pastXid(5, 31, "research/eval-a-3", "inc-yesterday", Bundles.AT.minus(Duration.ofDays(1))));
        assertEquals(Family.APPLICATION, d.family());
    }

    @Test
    void historyAloneWithoutAnXidNowDecidesNothing() {
        Diagnosis d = classify(Bundles.node(NODE).pastXid(4, 31, "research/eval-a-3", "inc-1", Bundles.AT.minus(Duration.ofDays(2)))
                .pastXid(4, 31, "ml/train-b-0", "inc-2", Bundles.AT.minus(Duration.ofDays(1))));
        assertEquals(Family.NONE, d.family());
    }

    @Test
    void sightingsComeFromPlatformSourcesOnly() {
        EvidenceBundle b = Bundles.node(NODE).holds(2, "ml", "train-0").xid(2, 31).xidFromALookAlikeExporter(3, 31)
                .log("ml", "train-0", "xid-kernel-line", "NVRM: Xid (PCI:0000:9a:00): 31, pid=1912, name=python, Ch 0000").build();
        List<XidSightings.Sighting> seen = new XidSightings(Toolsets.load("tools")).of(b);
        assertEquals(1, seen.size(), seen.toString());
        assertEquals("2", seen.get(0).gpu());
        assertEquals("ml/train-0", seen.get(0).process());
    }

    @Test
    void aKernelLineRelayedByTheNodeAgentNamesItsProcess() {
        EvidenceBundle b = Bundles.node(NODE).kernelXid(31, "Ch 00000008, intr 10000000").build();
        List<XidSightings.Sighting> seen = new XidSightings(Toolsets.load("tools")).of(b);
        assertEquals(1, seen.size(), seen.toString() + " " + b.items());
        assertEquals(31, seen.get(0).xid());
        assertEquals("4242/python", seen.get(0).process());
        assertEquals("pci:0000:3b:00", seen.get(0).gpu());
    }
}
