package io.acceltriage.diagnosis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runbooks as data: every bundled file valid and listed, one per family and failure kind, chosen from the diagnosis; operators add and override. */
class RunbooksTest {

    static final Runbooks BUNDLED = Runbooks.load(null);

    static String chosen(String family, String cause, Runbooks.Clue... clues) {
        return BUNDLED.choose(family, cause, List.of(clues)).map(Runbooks.Runbook::id).orElse("(none)");
    }

    @Test
    void everyBundledFileIsListedValidAndLinksTheVendorsGuide() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/knowledge/runbooks"))) {
            TreeSet<String> onDisk = files.map(f -> f.getFileName().toString()).filter(n -> !n.equals("index.yaml"))
                    .map(n -> n.replaceFirst("\\.yaml$", "")).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(onDisk, BUNDLED.all().stream().map(Runbooks.Runbook::id).collect(Collectors.toCollection(TreeSet::new)),
                    "index.yaml lists every runbook file");
        }
        for (Runbooks.Runbook r : BUNDLED.all()) {
            assertTrue(r.links().stream().allMatch(l -> l.url().startsWith("https://")), r.id());
            assertTrue(r.text().contains(r.next().get(0)) && r.text().contains(r.links().get(0).url()), r.id());
        }
    }

    @Test
    void everyFamilyHasARunbookWhateverItsCause() {
        for (Family f : Family.values()) {
            assertEquals(f.wireName(), chosen(f.wireName(), "something nobody wrote a runbook for"), f.name());
        }
        assertEquals("device", chosen("DEVICE", "something else"), "the stored diagnosis spells families in capitals");
    }

    @Test
    void everyFaultTheSandboxInjectsGetsItsOwnRunbook() {
        // The causes the classifier writes for each sandbox FaultKind (xid 79, dbe-ecc, row-remap-failure,
        // device-plugin-crash, nvml-mismatch, cuda-oom, node-not-ready), from the knowledge files they come from.
        Map<String, String[]> faults = Map.of(
                "xid-79-fallen-off-bus", new String[] {"device", "XID 79 (GPU has fallen off the bus) on GPU 3 of gpu-h100-07"},
                "uncorrectable-ecc", new String[] {"device", "uncorrectable (double-bit) ECC errors on GPU memory (GPU 1 of gpu-h100-02)"},
                "row-remap-failure", new String[] {"device", "row remapping failed on GPU memory (GPU 4 of gpu-h100-05)"},
                "device-plugin", new String[] {"infrastructure", "gpu-a100-02 advertises no nvidia.com/gpu: the device plugin is not serving its devices"},
                "driver-mismatch", new String[] {"infrastructure", "the NVIDIA kernel driver and the user-space libraries disagree (a partial driver upgrade)"},
                "cuda-oom", new String[] {"application", "the workload asked for more accelerator memory than the device has"},
                "node-not-ready", new String[] {"infrastructure", "gpu-h100-09 is not ready: kubelet stopped posting node status"});
        faults.forEach((runbook, d) -> assertEquals(runbook, chosen(d[0], d[1]), d[1]));
    }

    @Test
    void everyXidOfTheCatalogueGetsARunbookOfItsClassNotJustItsFamily() {
        List<String> generic = new ArrayList<>();
        for (var x : XidCatalogue.load().all()) {
            String id = chosen(x.family(), "XID " + x.code() + " (" + x.meaning() + ") on GPU 0 of gpu-h100-01");
            if (id.equals(x.family())) generic.add("XID " + x.code() + " → " + id);
        }
        assertTrue(generic.isEmpty(), "XIDs with only their family's runbook: " + generic);
    }

    @Test
    void aLesserFindingPicksTheRunbookWhenTheMainCauseHasNone() {
        assertEquals("nvlink", chosen("device", "GPU 2 of gpu-h100-03 is unhealthy", new Runbooks.Clue("device", "NVLink CRC errors", 0.6),
                new Runbooks.Clue("application", "XID 13 (graphics engine exception)", 0.9)));
        assertEquals("xid-79-fallen-off-bus", chosen("device", "XID 79 (GPU has fallen off the bus)",
                new Runbooks.Clue("device", "NVLink CRC errors", 0.6)), "the main cause before a lesser finding");
    }

    @TempDir
    Path dir;

    @Test
    void anOperatorsFolderAddsAndOverridesAndABadFileNamesItsLine() throws Exception {
        String body = """
                apiVersion: acceltriage.io/v1
                kind: Runbook
                title: "Our XID 79 procedure"
                match: {family: device, cause: '\\bXID 79\\b'}
                what: "The GPU fell off the bus."
                responder: "acceltriage cordons the node."
                next: ["Page the hardware team on #dc-ops."]
                links: [{title: "Internal wiki", url: "https://wiki.example.com/xid79"}]
                """;
        Files.writeString(dir.resolve("xid-79-fallen-off-bus.yaml"), body);
        Files.writeString(dir.resolve("tpu-v5e-ici.yaml"), body.replace("Our XID 79 procedure", "ICI link down on v5e")
                .replace("family: device, cause: '\\bXID 79\\b'", "family: device, cause: 'ICI link'"));
        Runbooks mine = Runbooks.load(dir.toString());
        assertEquals(BUNDLED.all().size() + 1, mine.all().size());
        assertEquals("Our XID 79 procedure", mine.byId("xid-79-fallen-off-bus").orElseThrow().title());
        assertEquals("tpu-v5e-ici", mine.choose("device", "ICI link down between chips 2 and 3", List.of()).orElseThrow().id());

        Files.writeString(dir.resolve("bad.yaml"), body.replace("url: \"https://wiki.example.com/xid79\"", "url: \"wiki/xid79\""));
        var e = assertThrows(DataFiles.InvalidDataFile.class, () -> Runbooks.load(dir.toString()));
        assertTrue(e.getMessage().startsWith(dir.resolve("bad.yaml") + ":8: every link needs a title and an https:// url"), e.getMessage());
        Files.writeString(dir.resolve("bad.yaml"), body.replace("family: device", "family: gpu"));
        e = assertThrows(DataFiles.InvalidDataFile.class, () -> Runbooks.load(dir.toString()));
        assertTrue(e.getMessage().startsWith(dir.resolve("bad.yaml") + ":4: match.family: unknown family 'gpu'"), e.getMessage());
        Files.writeString(dir.resolve("bad.yaml"), body.replace("next:", "nxt:"));
        e = assertThrows(DataFiles.InvalidDataFile.class, () -> Runbooks.load(dir.toString()));
        assertTrue(e.getMessage().startsWith(dir.resolve("bad.yaml") + ":7: unknown key 'nxt'"), e.getMessage());
    }
}
