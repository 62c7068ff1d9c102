package io.acceltriage.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The XID catalogue as the classifier reads it: every row of NVIDIA's catalogue with NVIDIA's immediate
 * action, a row's own fields over its bucket's, and an XID outside the catalogue escalated, never fenced.
 */
class XidCatalogueTest {

    static final XidCatalogue XIDS = XidCatalogue.load();

    @Test
    void everyRowOfNvidiasCatalogueIsThereWithItsImmediateAction() {
        List<Integer> missing = IntStream.rangeClosed(1, 172).filter(c -> XIDS.get(c).isEmpty()).boxed().toList();
        assertTrue(missing.isEmpty(), "XIDs of NVIDIA's catalogue not loaded: " + missing);
        List<Integer> unbucketed = XIDS.all().stream().filter(x -> x.bucket() == null || x.mnemonic() == null).map(XidCatalogue.Xid::code).toList();
        assertTrue(unbucketed.isEmpty(), "rows without NVIDIA's mnemonic or immediate action: " + unbucketed);
    }

    @Test
    void aRowTakesWhatItsBucketSaysUnlessItSaysMore() {
        XidCatalogue.Xid idle = XIDS.get(8).orElseThrow();
        assertEquals("RESTART_APP", idle.bucket());
        assertEquals(Family.APPLICATION, idle.familyEnum(), "RESTART_APP: the application restarts");
        assertEquals("restart app", idle.action());

        XidCatalogue.Xid training = XIDS.get(136).orElseThrow();
        assertTrue(training.fatal() && training.action().contains("reset GPU"), "RESET_GPU: " + training);

        XidCatalogue.Xid c2c = XIDS.get(121).orElseThrow();
        assertTrue(c2c.degradation() && !c2c.fatal(), "IGNORE: corrected errors, nothing to act on: " + c2c);

        XidCatalogue.Xid contained = XIDS.get(94).orElseThrow();
        assertEquals("RESTART_APP", contained.bucket());
        assertEquals(Family.DEVICE, contained.familyEnum(), "the row says more than its bucket: a device error, contained");
        assertTrue(contained.contained());
        assertTrue(contained.explains().contains("gpu_ecc_dbe_volatile"), "the DBE count it raises is the same event");
    }

    @Test
    void aRowWithNeitherABucketTheFileDefinesNorItsOwnFamilyIsRefusedNamingTheXid() {
        XidCatalogue.File file = new XidCatalogue.File(List.of(),
                List.of(new XidCatalogue.Row(999, "MADE_UP", "something", "NO_SUCH_BUCKET", null, null, null, null, null, null, null,
                        null, null)), List.of());

        var e = assertThrows(DataFiles.InvalidDataFile.class, () -> XidCatalogue.resolve(file));
        assertTrue(e.getMessage().contains("XID 999") && e.getMessage().contains("NO_SUCH_BUCKET"), e.getMessage());
    }

    @Test
    void theRecoveryFlagOfAnXid154LineSaysWhatTheGpuNeeds() {
        var reboot = XIDS.recoveryIn("NVRM: Xid (PCI:0000:9a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
        assertEquals("reboot", reboot.orElseThrow().needs());
        assertEquals("reset", XIDS.recoveryIn("recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)").orElseThrow().needs());
        assertTrue(XIDS.recoveryIn("recovery action changed from 0x2 (Node Reboot Required) to 0x0 (None)").orElseThrow().needs() == null);
        assertFalse(XIDS.recoveryIn("NVRM: Xid (PCI:0000:9a:00): 79, GPU has fallen off the bus.").isPresent());
    }

    @Test
    void anXidOutsideTheCatalogueIsADeviceFaultAPersonLooksUpNeverOneToFence() {
        Diagnosis d = ClassifierTest.classify(Bundles.node(ClassifierTest.NODE).xid(1, 250));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.cause().contains("not in the catalogue"), d.cause());
        assertTrue(d.nodeMayStay(), "an unknown code is no reason to fence the node");
        assertTrue(d.confidence() < ClassifierTest.lowestActingConfidence(), "escalated, not acted on: " + d.confidence());
    }

    @Test
    void anXidOutsideTheCatalogueRelayedByANodeAgentIsEscalatedToo() {
        Diagnosis d = ClassifierTest.classify(Bundles.node(ClassifierTest.NODE).kernelXid(251, "unknown error"));

        assertEquals(Family.DEVICE, d.family(), d.cause());
        assertTrue(d.nodeMayStay(), d.findings().toString());
    }

    @Test
    void anXidNvidiaRestartsTheApplicationForIsTheApplicationsAndARestartClearsIt() {
        Diagnosis d = ClassifierTest.classify(Bundles.pod("search", "indexer-0", ClassifierTest.NODE).holds(0, "search", "indexer-0")
                .batch("deployment", "search", "indexer", "indexer-0").xid(0, 8));

        assertEquals(Family.APPLICATION, d.family(), d.cause());
        assertTrue(d.restartHelps(), d.findings().toString());
    }

    @Test
    void aTestMessageIsAHintNotAFault() {
        Diagnosis d = ClassifierTest.classify(Bundles.node(ClassifierTest.NODE).xid(0, 106));

        assertEquals(Family.NONE, d.family(), d.cause());
    }
}
