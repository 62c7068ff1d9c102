package io.acceltriage.diagnosis;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The XIDs platform sources report in one bundle, per GPU: the exporter's XID gauge (when it changed)
 * and per-XID counter, and the kernel's {@code NVRM: Xid} lines the node agents relay (node events,
 * node conditions). Tenant text never counts: a workload can print any line. What the fault history
 * remembers and what the classifier counts repeats from.
 */
public final class XidSightings {

    /**
     * One XID on one GPU. {@code gpu}: its index, or {@code pci:ADDRESS} from a kernel line;
     * {@code process}: {@code namespace/pod}, {@code pid/name}, or {@code -} when the source names none.
     */
    public record Sighting(String node, String gpu, String uuid, int xid, String process, String source, Instant at,
            String evidenceId) {

        /** The same physical GPU: the UUID when both have one, else the node and index. */
        public String gpuKey() {
            return uuid != null && !uuid.isBlank() ? uuid : node + "/" + gpu;
        }

        public boolean named() {
            return !"-".equals(process);
        }
    }

    private static final Pattern KERNEL_XID = Pattern.compile("NVRM: Xid \\(PCI:([^)]*)\\): (\\d+)(?:, pid=([^,]*), name=([^,]*))?");

    private final Toolsets toolsets;

    public XidSightings(Toolsets toolsets) {
        this.toolsets = toolsets;
    }

    public List<Sighting> of(EvidenceBundle b) {
        List<Sighting> out = new ArrayList<>();
        Instant at = b.at() == null ? Instant.now() : b.at();
        for (Evidence e : b.items()) {
            if (!e.platform()) continue;
            if (e.fact() instanceof Facts.MetricReading m && m.node() != null && m.device() != null) {
                String catalogue = toolsets.forMetric(m.metric()).map(Toolset.Tool::fault).map(Toolset.Fault::catalogue).orElse(null);
                String process = m.pod() == null || m.pod().isBlank() ? "-" : (m.namespace() == null ? "" : m.namespace() + "/") + m.pod();
                if ("xid".equals(catalogue) && m.value() != 0 && (m.previous() == null || m.previous() != m.value())) {
                    out.add(new Sighting(m.node(), m.device(), m.uuid(), (int) m.value(), process, "exporter", at, e.id()));
                } else if ("xid-count".equals(catalogue) && m.xid() != null && m.value() >= 1 && m.xid().matches("\\d{1,4}")) {
                    out.add(new Sighting(m.node(), m.device(), m.uuid(), Integer.parseInt(m.xid()), process, "exporter", at, e.id()));
                }
            } else if (e.fact() instanceof Facts.ClusterEvent ev && "Node".equals(ev.objectKind())) {
                kernel(ev.message(), ev.objectName(), ev.lastSeen() == null ? at : ev.lastSeen(), e.id(), out);
            } else if (e.fact() instanceof Facts.NodeCondition c && "True".equals(c.status())) {
                kernel(c.message(), c.node(), at, e.id(), out);
            }
        }
        return out;
    }

    private static void kernel(String text, String node, Instant at, String id, List<Sighting> out) {
        if (text == null || node == null) return;
        Matcher m = KERNEL_XID.matcher(text);
        while (m.find()) {
            String pid = m.group(3) == null ? "" : m.group(3).replace("'", "").trim();
            String name = m.group(4) == null ? "" : m.group(4).trim();
            String process = pid.isEmpty() || pid.contains("unknown") ? "-" : pid + "/" + name;
            out.add(new Sighting(node, "pci:" + m.group(1).toLowerCase(Locale.ROOT), null, Integer.parseInt(m.group(2)), process,
                    "kernel", at, id));
        }
    }
}
