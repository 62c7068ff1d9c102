package io.acceltriage.triage;

import io.acceltriage.diagnosis.GpuRepeats;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.diagnosis.XidSightings;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Source;
import io.acceltriage.evidence.Trust;
import io.acceltriage.history.FaultHistory;
import io.acceltriage.history.GpuFault;
import io.acceltriage.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Triage's side of the fault history: what platform sources reported on a GPU is recorded with the
 * incident, and read back into the next incident's evidence for the GPUs it sees faulting, so a
 * repeat days later is seen as one. An escalation for a repeat offender quotes the history.
 */
public final class GpuMemory {

    private final FaultHistory history;
    private final XidSightings sightings;
    private final XidCatalogue xids;
    private final java.time.Duration recall;

    GpuMemory(FaultHistory history, XidSightings sightings, XidCatalogue xids, GpuRepeats repeats) {
        this.history = history;
        this.sightings = sightings;
        this.xids = xids;
        this.recall = repeats.window();
    }

    /** Faults earlier incidents recorded on the nodes whose GPUs report an XID now, as platform evidence. */
    List<Evidence> recall(EvidenceBundle b) {
        Set<String> nodes = new LinkedHashSet<>();
        sightings.of(b).forEach(s -> nodes.add(s.node()));
        if (nodes.isEmpty()) return List.of();
        Instant at = b.at() == null ? Instant.now() : b.at();
        List<Evidence> out = new ArrayList<>();
        int n = 0;
        for (GpuFault f : history.onNodes(nodes, at.minus(recall))) {
            if (!f.at().isBefore(at)) continue;
            out.add(new Evidence("E" + (b.items().size() + ++n), Source.CLUSTER, "fault history: XID " + f.xid() + " on " + f.node() + " GPU " + f.gpu()
                    + " at " + f.at() + " (" + f.process() + ", incident " + f.incidentId() + ", from the " + f.source() + ")",
                    new Facts.PastXid(f.node(), f.gpu(), f.uuid(), f.xid(), f.fatal(), f.process(), f.source(), f.incidentId(), f.at()),
                    Trust.PLATFORM));
        }
        return out;
    }

    /** Records this incident's XID sightings (platform sources only) in the caller's transaction. */
    void record(Tx tx, String incidentId, EvidenceBundle gathered) {
        // A shadow drill's synthetic reading is no fault of the GPU: it never enters the history the repeat-offender rule counts.
        EvidenceBundle b = new EvidenceBundle(gathered.subject(), gathered.at(), gathered.node(), gathered.pool(), gathered.nodeCordoned(),
                gathered.items().stream().filter(e -> e.source() != io.acceltriage.evidence.Source.DRILL).toList(), gathered.pods(),
                gathered.workloads(), gathered.gaps(), gathered.consulted());
        List<GpuFault> faults = sightings.of(b).stream().map(s -> new GpuFault(s.node(), s.gpu(), s.uuid(), s.xid(),
                xids.get(s.xid()).map(XidCatalogue.Xid::fatal).orElse(false), s.process(), s.source(), incidentId, s.at())).toList();
        history.record(tx, faults);
    }

    /**
     * The faults of GPU {@code gpu} of {@code node} (or of every GPU of it when null) since {@code since},
     * with times, this incident's own from {@code now} (recorded only once its triage is stored), for a person.
     */
    String quote(String node, String gpu, Instant since, EvidenceBundle now) {
        List<String> lines = new ArrayList<>();
        for (GpuFault f : gpu == null ? history.onNodes(List.of(node), since) : history.onGpu(node, gpu, since)) {
            lines.add(line(f.xid(), gpu == null ? f.gpu() : null, f.at(), f.process(), "incident " + f.incidentId()));
        }
        for (XidSightings.Sighting s : sightings.of(now)) {
            if (s.node().equals(node) && (gpu == null || gpu.equals(s.gpu()) || gpu.equals(s.uuid()))) {
                lines.add(line(s.xid(), gpu == null ? s.gpu() : null, s.at(), s.process(), "this incident"));
            }
        }
        String what = node + (gpu == null ? "" : " GPU " + gpu);
        return lines.isEmpty() ? "no XIDs recorded on " + what + " since " + since
                : "fault history of " + what + " since " + since + ": " + String.join("; ", lines);
    }

    private String line(int xid, String onGpu, Instant at, String process, String incident) {
        return "XID " + xid + (xids.get(xid).map(XidCatalogue.Xid::fatal).orElse(false) ? " (fatal)" : "")
                + (onGpu == null ? "" : " on GPU " + onGpu) + " at " + at + " on " + process + " (" + incident + ")";
    }
}
