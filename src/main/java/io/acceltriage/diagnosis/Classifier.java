package io.acceltriage.diagnosis;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.SignatureCatalogue;
import io.acceltriage.evidence.Source;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rule-based classifier. Every evidence item may yield a finding (a family, a weight, a cause);
 * findings of a family combine as independent reasons (noisy-or), and the strongest family wins,
 * less what the runner-up takes from its confidence. Root causes outweigh symptoms by construction:
 * a fatal XID or an unhealthy device weighs far more than the crash loops and timeouts it causes.
 * Plain code, no model: the same bundle always gives the same diagnosis.
 */
public final class Classifier {

    /** Below this the evidence does not support any fault. */
    static final double FAULT_THRESHOLD = 0.3;
    /** Seconds between a reading and its "ten minutes ago" counterpart. */
    static final double HISTORY_SECONDS = 600;
    /** Events older than this before the alert are history, not news. */
    static final java.time.Duration STALE_EVENT = java.time.Duration.ofMinutes(30);
    /** A node deleting longer than this is no removal under way but a stuck one (Karpenter drains within minutes). */
    static final java.time.Duration STUCK_DELETION = java.time.Duration.ofHours(1);
    /** What history (an old XID, an old event) weighs: a hint, never a fault on its own. */
    static final double HISTORY_WEIGHT = 0.1;

    private final XidCatalogue xids;
    private final Toolsets toolsets;
    private final SignatureCatalogue signatures;
    private final ClusterSignals cluster;
    private final GpuRepeats repeats = GpuRepeats.load();
    private final Stragglers stragglers = Stragglers.load();
    private final XidSightings sightings;

    /** Below every policy's minConfidence: a diagnosis without the cluster's state escalates. */
    static final double CLUSTER_UNREAD_CONFIDENCE = 0.5;

    public Classifier(XidCatalogue xids, Toolsets toolsets, SignatureCatalogue signatures, ClusterSignals cluster) {
        this.xids = xids;
        this.toolsets = toolsets;
        this.signatures = signatures;
        this.cluster = cluster;
        this.sightings = new XidSightings(toolsets);
    }

    public Diagnosis classify(EvidenceBundle bundle) {
        List<Finding> findings = new ArrayList<>();
        Readings readings = new Readings(bundle);
        for (Evidence e : bundle.items()) {
            findingFor(e, readings).ifPresent(findings::add);
        }
        findings.addAll(kernelRepeats(bundle));
        findings.addAll(stragglers.of(bundle, findings));
        findings.addAll(repeatsAcrossIncidents(bundle));
        findings = withRepeatsOnTheDevice(findings);
        findings = withProvenance(findings, bundle);
        findings = withWithdrawnDevicesExplained(findings, bundle);
        findings = withCompanionsExplained(findings, bundle);
        findings = withConsequencesOfPlatformFaults(findings, bundle);
        findings = withNodeAgentsAsInfrastructure(findings, bundle);
        findings = withWrappersExplained(findings, bundle);
        findings = withPlannedChanges(findings, bundle);
        findings = withNodeWideDegradations(findings, bundle);
        findings = withCorroboratedHints(findings, bundle);
        // Findings of one group are one reason: the strongest of them counts. Different reasons
        // combine as independent evidence (noisy-or).
        Map<String, Finding> strongest = new java.util.LinkedHashMap<>();
        for (Finding f : findings) {
            if (f.group().startsWith(CONSEQUENCE)) continue;
            strongest.merge(f.family() + "|" + f.group(), f, (a, b) -> b.weight() > a.weight() ? b : a);
        }
        Map<Family, Double> scores = new EnumMap<>(Family.class);
        for (Finding f : strongest.values()) {
            scores.merge(f.family(), f.weight(), (a, b) -> 1 - (1 - a) * (1 - b));
        }
        List<Map.Entry<Family, Double>> ranked = scores.entrySet().stream()
                .sorted(Map.Entry.<Family, Double>comparingByValue().reversed()).toList();
        List<String> notes = new ArrayList<>();
        for (Gap g : bundle.gaps()) {
            notes.add(g.source().name().toLowerCase() + " unavailable: " + g.reason());
        }
        boolean metricsMissing = bundle.gaps().stream().anyMatch(g -> g.source() == Source.METRICS);
        // Every mitigation acts on the node or workload the cluster view describes: without it, a
        // verdict would be a guess about what is there.
        boolean clusterUnread = bundle.gaps().stream().anyMatch(g -> g.failed() && g.source() == Source.CLUSTER);
        List<Disagreement> disagreements = SourceDisagreements.of(findings, bundle, m -> toolsets.forMetric(m.metric())
                .map(t -> t.fault() != null && (t.fault().catalogue() != null || "device".equals(t.fault().family()))).orElse(false));

        if (ranked.isEmpty() || ranked.get(0).getValue() < FAULT_THRESHOLD) {
            double confidence = metricsMissing ? 0.4 : 0.8;
            if (!ranked.isEmpty()) confidence -= ranked.get(0).getValue();
            List<String> looked = findings.stream().flatMap(f -> f.evidenceIds().stream()).distinct().toList();
            return new Diagnosis(Family.NONE, "no fault found in the evidence", round(Math.max(0.05, confidence)), looked,
                    findings, false, notes, disagreements);
        }
        Family family = ranked.get(0).getKey();
        double best = ranked.get(0).getValue();
        double second = ranked.size() > 1 ? ranked.get(1).getValue() : 0;
        double confidence = best - 0.5 * second;
        if (metricsMissing) {
            confidence -= 0.15;
        }
        if (clusterUnread) {
            confidence = Math.min(confidence, CLUSTER_UNREAD_CONFIDENCE);
            notes.add("the Kubernetes API could not be read: a person decides, nothing acts on a view of the cluster it does not have");
        }
        List<Finding> supporting = findings.stream().filter(f -> f.family() == family)
                .sorted(Comparator.comparingDouble(Finding::weight).reversed()).toList();
        boolean degradation = family == Family.DEVICE && supporting.stream().allMatch(Finding::degradation);
        if (degradation) {
            // Slow but working: classified device, with the low confidence that keeps hands off.
            confidence = Math.min(confidence, 0.5);
            notes.add("device degradation: the device still works; escalate rather than act");
        }
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        supporting.forEach(f -> ids.addAll(f.evidenceIds()));
        return new Diagnosis(family, supporting.get(0).cause(), round(Math.max(0.05, confidence)), List.copyOf(ids),
                findings, degradation, notes, disagreements);
    }

    /**
     * An XID that repeats on one GPU belongs to the family the catalogue gives a repeating code (XID
     * 13 and 31: the device), so each single report of that code is read that way too.
     */
    private static List<Finding> withRepeatsOnTheDevice(List<Finding> findings) {
        Map<String, Family> repeated = new java.util.HashMap<>();
        for (Finding f : findings) {
            if (f.group().startsWith("xid-repeat-")) repeated.put("xid-" + f.group().substring("xid-repeat-".length()), f.family());
        }
        if (repeated.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            Family to = repeated.get(f.group());
            out.add(to == null ? f : new Finding(to, f.weight(), f.cause() + ", repeating", f.evidenceIds(), f.group(),
                    f.symptom(), f.degradation(), f.contained(), false));
        }
        return out;
    }

    /**
     * Group prefix of a finding saying the device is due for replacement (retired pages at the limit): it still runs
     * what it runs, so the node is kept from new work and a person replaces the device; nothing is moved or reset.
     */
    public static final String REPLACE_DEVICE = "replace-device/";

    /**
     * Group prefix of a finding saying the device awaits a reset to apply a repair it recorded (a page retirement
     * pending): it works meanwhile, so the node is kept from new work and a person resets the GPU once what runs there
     * ends; nothing is moved, and nothing is reset under the work.
     */
    public static final String RESET_PENDING = "reset-pending/";

    /**
     * Group prefix of a finding saying the device works, slowed, until a person services its hardware (a PCIe link that
     * keeps replaying, a board without its auxiliary power): the node is kept from new work and a person services it;
     * nothing is moved, reset or rebooted, as none of them changes the hardware.
     */
    public static final String SERVICE_HARDWARE = "service-hardware/";

    /**
     * An XID whose catalogue row {@code explains} other finding groups governs them when they describe the same
     * event: the same GPU (node and index) or the pod that holds it. XID 94 says the ECC error was contained to
     * one application; the DBE counter it raised and the application's "uncorrectable ECC error" line are that
     * same error, so they take the XID's reading (contained, the application restarts) and weigh no more than it.
     */
    private List<Finding> withCompanionsExplained(List<Finding> findings, EvidenceBundle b) {
        record Event(Finding by, XidCatalogue.Xid xid, String node, String device, String pod) {}
        List<Event> events = new ArrayList<>();
        for (Finding f : findings) {
            if (f.symptom() || !f.group().matches("xid-\\d+")) continue;
            Optional<XidCatalogue.Xid> x = xids.get(Integer.parseInt(f.group().substring(4))).filter(r -> !r.explains().isEmpty());
            if (x.isEmpty()) continue;
            for (String id : f.evidenceIds()) {
                Optional<Evidence> e = b.byId(id).filter(Evidence::platform);
                if (e.isPresent() && e.get().fact() instanceof Facts.MetricReading m) {
                    events.add(new Event(f, x.get(), m.node(), m.device(),
                            m.pod() == null ? null : (m.namespace() == null ? "" : m.namespace() + "/") + m.pod()));
                } else {
                    // A kernel line a node agent relays names the GPU by PCI address only: the node is the event's place.
                    e.flatMap(ev -> nodeOfFact(ev.fact())).ifPresent(n -> events.add(new Event(f, x.get(), n, null, null)));
                }
            }
        }
        if (events.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding g : findings) {
            Event by = events.stream().filter(ev -> ev.by() != g && ev.xid().explains().contains(g.group())
                    && g.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).allMatch(e -> sameEvent(e, ev.node(), ev.device(), ev.pod(), b)))
                    .findFirst().orElse(null);
            out.add(by == null || g.evidenceIds().isEmpty() ? g : new Finding(by.by().family(), Math.min(g.weight(), by.by().weight()),
                    g.cause() + ", the same event as " + by.by().cause(), g.evidenceIds(), g.group(), g.symptom(), by.by().degradation(),
                    by.by().contained(), by.by().restartHelps()));
        }
        return out;
    }

    private static boolean sameEvent(Evidence e, String node, String device, String pod, EvidenceBundle b) {
        if (e.fact() instanceof Facts.MetricReading m) {
            return java.util.Objects.equals(node, m.node()) && (device == null || m.device() == null || device.equals(m.device()));
        }
        return podOf(e).map(p -> p.equals(pod) || b.pods().stream().anyMatch(pl -> pl.ref().equals(p) && java.util.Objects.equals(node, pl.node())))
                .orElse(false);
    }

    /** Group prefix of a finding a fatal platform fault explains: kept for the reader, weighed for no family. */
    public static final String CONSEQUENCE = "consequence/";

    /** What a platform finding must weigh to explain the workload's failures on its node: a fatal fault of the device or node. */
    static final double EXPLAINING_WEIGHT = 0.85;

    /**
     * A fatal platform fault (a fatal XID, a driver recovery flag, an uncontained error) breaks whatever runs on that
     * node: the workload's own failures there (its model no longer loads, its kernels fail, it crash-loops) are
     * consequences, kept as symptoms for the reader but weighed for no family, so they do not dilute the platform's
     * confidence as a rival application diagnosis. Only the workload's pods on the faulty node, or the other members of
     * a gang with a member there (their collectives time out waiting for it), and only from tenant sources.
     */
    private static List<Finding> withConsequencesOfPlatformFaults(List<Finding> findings, EvidenceBundle b) {
        Map<String, Finding> faulty = new java.util.LinkedHashMap<>();
        for (Finding f : findings) {
            if ((f.family() != Family.DEVICE && f.family() != Family.INFRASTRUCTURE) || f.symptom() || f.degradation() || f.contained()
                    || f.weight() < EXPLAINING_WEIGHT) continue;
            f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).filter(Evidence::platform).map(e -> nodeOfFact(e.fact()))
                    .flatMap(Optional::stream).forEach(n -> faulty.putIfAbsent(n, f));
        }
        if (faulty.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding g : findings) {
            Finding by = null;
            if (g.family() == Family.APPLICATION && !g.evidenceIds().isEmpty()) {
                List<Evidence> es = g.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).toList();
                java.util.Set<String> nodes = new LinkedHashSet<>();
                boolean podsOnly = !es.isEmpty() && es.stream().noneMatch(Evidence::platform);
                for (Evidence e : es) {
                    Optional<String> node = podNode(e, b);
                    if (node.isEmpty()) podsOnly = false;
                    node.ifPresent(nodes::add);
                }
                if (podsOnly && nodes.size() == 1) by = faulty.get(nodes.iterator().next());
                if (by == null && podsOnly) by = gangMemberOnAFaultyNode(es, faulty, b);
            }
            out.add(by == null ? g : new Finding(g.family(), g.weight(), g.cause() + " (a consequence of: " + by.cause() + ")",
                    g.evidenceIds(), CONSEQUENCE + g.group(), true, false, false, false));
        }
        return out;
    }

    /** The fault on a node where another member of the same gang runs, when every piece of evidence is about such a gang's pods. */
    private static Finding gangMemberOnAFaultyNode(List<Evidence> es, Map<String, Finding> faulty, EvidenceBundle b) {
        Finding by = null;
        for (Evidence e : es) {
            Optional<io.acceltriage.evidence.Workload> gang = podOf(e).flatMap(p -> b.pods().stream().filter(pl -> pl.ref().equals(p)).findFirst())
                    .map(io.acceltriage.evidence.PodPlacement::workloadRef).flatMap(b::workload).filter(io.acceltriage.evidence.Workload::gang);
            Optional<Finding> f = gang.flatMap(w -> w.nodes().stream().map(faulty::get).filter(java.util.Objects::nonNull).findFirst());
            if (f.isEmpty()) return null;
            by = f.get();
        }
        return by;
    }

    /** The node of the pod a piece of evidence is about, when the bundle places it. */
    private static Optional<String> podNode(Evidence e, EvidenceBundle b) {
        if (e.fact() instanceof Facts.ContainerState c && c.node() != null) return Optional.of(c.node());
        return podOf(e).flatMap(p -> b.pods().stream().filter(pl -> pl.ref().equals(p)).map(io.acceltriage.evidence.PodPlacement::node)
                .filter(java.util.Objects::nonNull).findFirst());
    }

    /**
     * A node agent (device plugin, exporter, driver container) is the platform's, not a tenant's workload: what its
     * own pod's events and logs say (an image it cannot pull, a crash) is an infrastructure fault of the node.
     */
    private static List<Finding> withNodeAgentsAsInfrastructure(List<Finding> findings, EvidenceBundle b) {
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            List<Evidence> es = f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).toList();
            boolean agents = f.family() == Family.APPLICATION && !es.isEmpty() && es.stream().allMatch(e -> podOf(e)
                    .flatMap(p -> b.pods().stream().filter(pl -> pl.ref().equals(p)).findFirst())
                    .map(pl -> pl.role().nodeAgent()).orElse(e.fact() instanceof Facts.LogMatch l && l.role().nodeAgent()));
            out.add(agents ? new Finding(Family.INFRASTRUCTURE, f.weight(), "node agent " + podOf(es.get(0)).orElse("") + ": "
                    + f.cause().replace("the workload's", "its"), f.evidenceIds(), f.group(), f.symptom(), false, false, false) : f);
        }
        return out;
    }

    /**
     * A framework's wrapper line ("failed to load 'model'") says that something failed, and often quotes what: when
     * the same pod's log names a cause of the platform (its node's driver too old for the image's CUDA, no device),
     * the failed load is that cause's symptom, kept for the reader and weighed for no family, so the workload's
     * own report does not outvote the reason it gives.
     */
    private List<Finding> withWrappersExplained(List<Finding> findings, EvidenceBundle b) {
        Map<String, Finding> causes = new java.util.HashMap<>();
        for (Finding f : findings) {
            if (f.family() != Family.INFRASTRUCTURE && f.family() != Family.DEVICE) continue;
            for (String id : f.evidenceIds()) {
                b.byId(id).map(Evidence::fact).filter(x -> x instanceof Facts.LogMatch l && !wrapper(l))
                        .map(x -> ((Facts.LogMatch) x).namespace() + "/" + ((Facts.LogMatch) x).pod()).ifPresent(p -> causes.putIfAbsent(p, f));
            }
        }
        if (causes.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding g : findings) {
            List<Facts.LogMatch> lines = g.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).map(Evidence::fact)
                    .filter(Facts.LogMatch.class::isInstance).map(Facts.LogMatch.class::cast).toList();
            Finding by = !lines.isEmpty() && lines.size() == g.evidenceIds().size() && lines.stream().allMatch(this::wrapper)
                    ? causes.get(lines.get(0).namespace() + "/" + lines.get(0).pod()) : null;
            out.add(by == null || g.group().startsWith(CONSEQUENCE) ? g : new Finding(g.family(), g.weight(), g.cause()
                    + " (a consequence of: " + by.cause() + ")", g.evidenceIds(), CONSEQUENCE + g.group(), true, false, false, false));
        }
        return out;
    }

    /** What a node's software behind its pool's weighs alone: a hint below the fault threshold. */
    static final double BEHIND_POOL_WEIGHT = 0.2;

    /**
     * A node running older accelerator software than its pool (a platform source) beside a workload on that node
     * saying, in its own log, that the node's software is what fails it (an infrastructure signature: "CUDA driver
     * version is insufficient"): the platform corroborates the workload, and its reason now weighs what the workload's does,
     * so the node can be fenced on the platform's word.
     */
    private static List<Finding> withCorroboratedHints(List<Finding> findings, EvidenceBundle b) {
        Map<String, Double> claimed = new java.util.HashMap<>();
        for (Finding f : findings) {
            if (f.family() != Family.INFRASTRUCTURE || f.group().startsWith(CONSEQUENCE)) continue;
            for (String id : f.evidenceIds()) {
                b.byId(id).filter(e -> !e.platform() && e.fact() instanceof Facts.LogMatch).flatMap(e -> podNode(e, b))
                        .ifPresent(n -> claimed.merge(n, f.weight(), Math::max));
            }
        }
        if (claimed.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding g : findings) {
            Double w = !"behind-pool".equals(g.group()) ? null : g.evidenceIds().stream().map(b::byId).flatMap(Optional::stream)
                    .map(e -> nodeOfFact(e.fact())).flatMap(Optional::stream).map(claimed::get).filter(java.util.Objects::nonNull)
                    .findFirst().orElse(null);
            out.add(w == null ? g : new Finding(g.family(), Math.max(g.weight(), w), g.cause() + ", where a workload's own log says"
                    + " the node's software fails it", g.evidenceIds(), g.group(), false, false, false, false));
        }
        return out;
    }

    /** Group prefix of a finding saying a change the platform makes on purpose is under way on a node. */
    public static final String PLANNED = "planned/";

    /**
     * Group prefix of a planned change that is the node's removal: its provisioner (Karpenter) or the cluster autoscaler
     * drains it and deletes it ({@code leaving} taints of {@code cluster-signals.yaml}, or the Node's deletionTimestamp).
     */
    public static final String LEAVING = PLANNED + "leaving/";

    /**
     * A degradation that every device of a node shows at once (each GPU's clocks held by the power brake, say) is not
     * one device wearing out but the node's power delivery or cooling: a fault a person services, so the node is kept
     * from new work. Only tools whose fault says so ({@code serviceWhenNodeWide}), and only with two devices or more,
     * every one the node has (its accelerator capacity).
     */
    private List<Finding> withNodeWideDegradations(List<Finding> findings, EvidenceBundle b) {
        Map<String, Toolset.Tool> tools = new java.util.LinkedHashMap<>();
        Map<String, List<String>> ids = new HashMap<>();
        Map<String, Set<String>> tripped = new HashMap<>();
        for (Finding f : findings) {
            if (!f.degradation() || f.symptom() || f.evidenceIds().size() != 1) continue;
            Optional<Facts.MetricReading> m = b.byId(f.evidenceIds().get(0)).map(Evidence::fact)
                    .filter(Facts.MetricReading.class::isInstance).map(Facts.MetricReading.class::cast);
            if (m.isEmpty() || m.get().node() == null || m.get().device() == null) continue;
            Optional<Toolset.Tool> tool = toolsets.forMetric(m.get().metric());
            if (tool.isEmpty() || tool.get().fault() == null || !tool.get().fault().nodeWideNeedsService()) continue;
            String key = m.get().node() + "|" + tool.get().name();
            tools.put(key, tool.get());
            ids.computeIfAbsent(key, k -> new ArrayList<>()).add(f.evidenceIds().get(0));
            tripped.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(m.get().device());
        }
        if (tools.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings);
        tools.forEach((key, tool) -> {
            String node = key.substring(0, key.indexOf('|'));
            // Every device the node has, as its capacity counts them (the evidence holds only the readings that say something).
            int devices = b.items().stream().map(Evidence::fact).filter(f -> f instanceof Facts.AcceleratorCapacity c && node.equals(c.node()))
                    .mapToInt(f -> Math.max(((Facts.AcceleratorCapacity) f).capacity(), ((Facts.AcceleratorCapacity) f).expected())).max().orElse(0);
            if (devices < 2 || tripped.get(key).size() < devices) return;
            out.add(new Finding(Family.DEVICE, 0.7, tool.fault().cause() + " on every one of the " + devices + " devices of " + node
                    + " at once: the node's power delivery or cooling, not one device", List.copyOf(ids.get(key)),
                    SERVICE_HARDWARE + tool.name() + "-node-wide", false, false, false, false));
        });
        return out;
    }

    /**
     * A node under a planned change (the MIG manager applying a new layout) has its accelerators withdrawn and its device
     * plugin paused on purpose: the missing capacity and the paused agents there are that change, kept for the reader
     * and weighed for no family. A node being removed on purpose loses its node agents and then its kubelet as it is
     * drained and deleted: its agents, its capacity and its readiness going away are that removal. A fault the change
     * does not explain (an XID, a failed apply) still counts.
     */
    private static List<Finding> withPlannedChanges(List<Finding> findings, EvidenceBundle b) {
        java.util.Set<String> nodes = new java.util.HashSet<>();
        java.util.Set<String> leaving = new java.util.HashSet<>();
        for (Finding f : findings) {
            if (!f.group().startsWith(PLANNED)) continue;
            f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).filter(Evidence::platform).map(e -> nodeOfFact(e.fact()))
                    .flatMap(Optional::stream).forEach(n -> (f.group().startsWith(LEAVING) ? leaving : nodes).add(n));
        }
        if (nodes.isEmpty() && leaving.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding g : findings) {
            boolean agents = "capacity".equals(g.group()) || "node-agent".equals(g.group());
            boolean byChange = agents && onNodes(g, nodes, b);
            boolean byRemoval = (agents || "node-ready".equals(g.group())) && onNodes(g, leaving, b);
            out.add(byChange || byRemoval ? new Finding(g.family(), g.weight(), g.cause() + (byRemoval
                    ? " (the node is being removed on purpose)" : " (withdrawn by the planned change under way there)"),
                    g.evidenceIds(), CONSEQUENCE + g.group(), true, false, false, false) : g);
        }
        return out;
    }

    /** Every piece of evidence of the finding is about one of {@code nodes} (a node agent's container by the node it runs on). */
    private static boolean onNodes(Finding g, java.util.Set<String> nodes, EvidenceBundle b) {
        return !nodes.isEmpty() && !g.evidenceIds().isEmpty() && g.evidenceIds().stream().map(b::byId).flatMap(Optional::stream)
                .allMatch(e -> nodes.contains(e.fact() instanceof Facts.ContainerState c ? c.node() : nodeOfFact(e.fact()).orElse(null)));
    }

    private boolean wrapper(Facts.LogMatch l) {
        return signatures.byId(l.signature()).map(SignatureCatalogue.Signature::wrapper).orElse(false);
    }

    /** Group part of a finding whose fault reaches every accelerator of its node (a switch fabric they share). */
    public static final String NODE_WIDE = "node-wide/";

    /** Group prefix of a finding saying the node cannot run accelerator work until a person fixes it. */
    public static final String CANNOT_SERVE = "node-cannot-serve/";

    /** Distinct processes that must hit the same XID on one GPU for it to be the GPU's (NVSentinel's analyzer: twice in 24 h). */
    static final int REPEAT_PROCESSES = 2;
    /** How far back kernel XID lines still count towards a repeat. */
    static final java.time.Duration REPEAT_WINDOW = java.time.Duration.ofHours(24);
    private static final java.util.regex.Pattern KERNEL_XID_PROCESS =
            java.util.regex.Pattern.compile("NVRM: Xid \\(PCI:([^)]*)\\): (\\d+), pid=([^,]*), name=([^,]*)");

    /**
     * The same XID from different processes on one GPU (its PCI address) within the window, as the
     * platform relays the kernel's lines (node events, node-agent conditions): the GPU, not the apps,
     * for the codes the catalogue gives a repeating family (NVIDIA's XID 13/31 guidance).
     */
    private List<Finding> kernelRepeats(EvidenceBundle b) {
        Map<String, java.util.Set<String>> processes = new java.util.LinkedHashMap<>();
        Map<String, List<String>> ids = new java.util.HashMap<>();
        for (Evidence e : b.items()) {
            if (!e.platform()) continue;
            String text = null;
            String node = null;
            if (e.fact() instanceof Facts.ClusterEvent ev && "Node".equals(ev.objectKind())) {
                if (ev.lastSeen() != null && b.at() != null && ev.lastSeen().isBefore(b.at().minus(REPEAT_WINDOW))) continue;
                text = ev.message();
                node = ev.objectName();
            } else if (e.fact() instanceof Facts.NodeCondition c && "True".equals(c.status())) {
                text = c.message();
                node = c.node();
            }
            if (text == null) continue;
            java.util.regex.Matcher m = KERNEL_XID_PROCESS.matcher(text);
            while (m.find()) {
                String pid = m.group(3).replace("'", "").trim();
                String name = m.group(4).trim();
                if (pid.isEmpty() || pid.contains("unknown")) continue;
                String key = node + "|" + m.group(1).toLowerCase(java.util.Locale.ROOT) + "|" + m.group(2);
                processes.computeIfAbsent(key, k -> new java.util.LinkedHashSet<>()).add(pid + "/" + name);
                ids.computeIfAbsent(key, k -> new ArrayList<>()).add(e.id());
            }
        }
        List<Finding> out = new ArrayList<>();
        processes.forEach((key, procs) -> {
            if (procs.size() < REPEAT_PROCESSES) return;
            String[] k = key.split("\\|");
            int code = Integer.parseInt(k[2]);
            xids.get(code).filter(x -> x.repeatingFamily() != null).ifPresent(x -> out.add(new Finding(Family.parse(x.repeatingFamily()), 0.85,
                    "XID " + code + " (" + x.meaning() + ") from " + procs.size() + " different processes on GPU " + k[1] + " of " + k[0]
                            + " within " + REPEAT_WINDOW.toHours() + " h: the device, not the workloads",
                    List.copyOf(new LinkedHashSet<>(ids.get(key))), "xid-repeat-" + code, false, false, false, false)));
        });
        return out;
    }

    /**
     * The same XID from different pods or processes on one GPU within the history's window, this
     * incident's sighting among them and at least one from an earlier incident (the fault history,
     * read into the bundle as {@code PastXid} evidence): the GPU, not the applications, however many
     * days apart the incidents were. Both sides are platform sources; the codes and the window are
     * {@code knowledge/gpu-history.yaml}.
     */
    private List<Finding> repeatsAcrossIncidents(EvidenceBundle b) {
        List<Evidence> past = b.of(Facts.PastXid.class);
        if (past.isEmpty()) return List.of();
        java.time.Instant since = (b.at() == null ? java.time.Instant.now() : b.at()).minus(repeats.window());
        List<Finding> out = new ArrayList<>();
        Map<String, XidSightings.Sighting> now = new java.util.LinkedHashMap<>();
        for (XidSightings.Sighting s : sightings.of(b)) {
            if (repeats.counts(s.xid())) now.putIfAbsent(s.gpuKey() + "|" + s.xid(), s);
        }
        now.forEach((key, s) -> {
            java.util.Set<String> processes = new LinkedHashSet<>();
            List<String> ids = new ArrayList<>(List.of(s.evidenceId()));
            java.util.Set<String> incidents = new LinkedHashSet<>();
            if (s.named()) processes.add(s.process());
            for (Evidence e : past) {
                Facts.PastXid p = (Facts.PastXid) e.fact();
                String gpuKey = p.uuid() != null && !p.uuid().isBlank() ? p.uuid() : p.node() + "/" + p.gpu();
                if (p.xid() != s.xid() || !gpuKey.equals(s.gpuKey()) || p.at().isBefore(since) || "-".equals(p.process())) continue;
                processes.add(p.process());
                incidents.add(p.incident());
                ids.add(e.id());
            }
            if (incidents.isEmpty() || processes.size() < repeats.processes()) return;
            xids.get(s.xid()).filter(x -> x.repeatingFamily() != null).ifPresent(x -> out.add(new Finding(
                    Family.parse(x.repeatingFamily()), 0.85, "XID " + s.xid() + " (" + x.meaning() + ") from " + processes.size()
                            + " different pods or processes on GPU " + s.gpu() + " of " + s.node() + " across " + (incidents.size() + 1)
                            + " incidents within " + repeats.repeats().window() + " (" + String.join(", ", processes)
                            + "): the device, not the workloads", List.copyOf(new LinkedHashSet<>(ids)), "xid-repeat-" + s.xid(),
                    false, false, false, false)));
        });
        return out;
    }

    /** The group of a hardware claim only tenant sources make: it weighs as the workload's own failure or as a hint. */
    public static final String TENANT_CLAIM = "tenant-claim";
    /** What a workload's uncorroborated claim of a hardware fault weighs as its own failure. */
    static final double TENANT_CLAIM_WEIGHT = 0.3;

    /**
     * Text a tenant controls is not proof about shared hardware. A device finding resting only on
     * tenant sources (a workload's log, its crashes, events written into its namespace,
     * a series a look-alike exporter serves) counts for its family only when a platform source (the
     * exporter DaemonSet's pods, the device plugin's health, node status and conditions, node agents'
     * events) points the same way. Otherwise a workload that is itself failing while claiming a hardware
     * fault is read as failing on its own (the application's, for its owners), and any other such claim
     * is kept as a hint below every threshold, for a person to look at. Infrastructure claims keep
     * their family (the kubelet writes its pod events where the pod lives, so a tenant's namespace
     * holds genuine ones too); the planner fences nothing on tenant sources alone either way.
     */
    private static List<Finding> withProvenance(List<Finding> findings, EvidenceBundle b) {
        // With the device metrics unread, a tenant's claim is all there is to go on: it keeps its family
        // (suspicion, for a person), and the planner fences nothing on it alone.
        if (b.gaps().stream().anyMatch(g -> g.source() == Source.METRICS)) return findings;
        java.util.Set<Family> corroborated = java.util.EnumSet.noneOf(Family.class);
        for (Finding f : findings) {
            if (f.weight() >= FAULT_THRESHOLD && platform(f, b)) corroborated.add(f.family());
        }
        java.util.Set<String> troubled = new java.util.HashSet<>();
        for (Evidence e : b.items()) {
            if (e.fact() instanceof Facts.ContainerState c && !c.role().nodeAgent()) troubled.add(c.namespace() + "/" + c.pod());
        }
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            // Infrastructure claims keep their family (the planner fences nothing on them alone): a tenant cannot
            // tell a runtime hook from its own failure, while the kubelet writes those events where the pod lives.
            boolean hardware = f.family() == Family.DEVICE;
            // A straggler is the workload's own account by nature: a degradation that escalates naming the GPU, never a fence.
            if (!hardware || corroborated.contains(f.family()) || platform(f, b) || f.evidenceIds().isEmpty()
                    || Stragglers.GROUP.equals(f.group())) {
                out.add(f);
                continue;
            }
            boolean claimantFailing = f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream)
                    .map(Classifier::podOf).flatMap(Optional::stream).anyMatch(troubled::contains);
            String claim = f.cause() + ", claimed only by a tenant source while no platform source (exporter, device plugin, node"
                    + " status, node agents) shows it";
            out.add(claimantFailing
                    ? new Finding(Family.APPLICATION, Math.min(f.weight(), TENANT_CLAIM_WEIGHT), claim + ": the workload is failing on its own",
                            f.evidenceIds(), TENANT_CLAIM, true, false, false, false)
                    : new Finding(f.family(), Math.min(f.weight(), HISTORY_WEIGHT), claim, f.evidenceIds(), TENANT_CLAIM, true, false,
                            false, false));
        }
        return out;
    }

    /**
     * A node advertising none of its accelerators may have lost its device plugin or all its devices.
     * When a platform source shows a device fault on that same node, the devices are what is gone.
     */
    private static List<Finding> withWithdrawnDevicesExplained(List<Finding> findings, EvidenceBundle b) {
        java.util.Set<String> faulty = new java.util.HashSet<>();
        for (Finding f : findings) {
            if (f.family() == Family.DEVICE && f.weight() >= 0.5 && !f.symptom() && platform(f, b)) {
                f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).map(e -> nodeOfFact(e.fact())).flatMap(Optional::stream)
                        .forEach(faulty::add);
            }
        }
        if (faulty.isEmpty()) return findings;
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            boolean withdrawn = f.family() == Family.INFRASTRUCTURE && "capacity".equals(f.group()) && f.evidenceIds().stream()
                    .map(b::byId).flatMap(Optional::stream).anyMatch(e -> e.fact() instanceof Facts.AcceleratorCapacity c && faulty.contains(c.node()));
            out.add(withdrawn ? new Finding(Family.DEVICE, f.weight(), f.cause().replace("the device plugin is not serving its devices",
                    "its devices are withdrawn as unhealthy"), f.evidenceIds(), "capacity", false, false, false, false) : f);
        }
        return out;
    }

    /** The node a fact is about, when it names one. */
    public static Optional<String> nodeOfFact(io.acceltriage.evidence.Fact f) {
        if (f instanceof Facts.MetricReading m) return Optional.ofNullable(m.node());
        if (f instanceof Facts.DeviceHealth h) return Optional.ofNullable(h.node());
        if (f instanceof Facts.AcceleratorCapacity c) return Optional.ofNullable(c.node());
        if (f instanceof Facts.NodeCondition c) return Optional.ofNullable(c.node());
        if (f instanceof Facts.DeviceTaint t) return Optional.ofNullable(t.node());
        if (f instanceof Facts.NodeLabel l) return Optional.ofNullable(l.node());
        if (f instanceof Facts.NodeTaint t) return Optional.ofNullable(t.node());
        if (f instanceof Facts.NodeDeletion n) return Optional.ofNullable(n.node());
        if (f instanceof Facts.SliceHost h) return Optional.ofNullable(h.node());
        if (f instanceof Facts.BehindPool v) return Optional.ofNullable(v.node());
        if (f instanceof Facts.Unoffered u) return Optional.ofNullable(u.node());
        if (f instanceof Facts.PodRejected r) return Optional.ofNullable(r.node());
        if (f instanceof Facts.ClusterEvent ev && "Node".equals(ev.objectKind())) return Optional.ofNullable(ev.objectName());
        return Optional.empty();
    }

    private static boolean platform(Finding f, EvidenceBundle b) {
        return f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).anyMatch(Evidence::platform);
    }

    private static Optional<String> podOf(Evidence e) {
        if (e.fact() instanceof Facts.LogMatch l) return Optional.of(l.namespace() + "/" + l.pod());
        if (e.fact() instanceof Facts.ClusterEvent ev && "Pod".equals(ev.objectKind())) return Optional.of(ev.namespace() + "/" + ev.objectName());
        if (e.fact() instanceof Facts.ContainerState c) return Optional.of(c.namespace() + "/" + c.pod());
        return Optional.empty();
    }

    private Optional<Finding> findingFor(Evidence e, Readings readings) {
        String id = e.id();
        if (e.fact() instanceof Facts.MetricReading m) {
            return metricFinding(m, id, readings);
        }
        if (e.fact() instanceof Facts.AcceleratorCapacity c) {
            if (c.expected() > 0 && c.capacity() == 0 || c.capacity() > 0 && c.allocatable() == 0) {
                return Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.65,
                        c.node() + " advertises no " + c.resource() + ": the device plugin is not serving its devices", id, "capacity"));
            }
            if (c.allocatable() < c.capacity()) {
                return Optional.of(Finding.of(Family.DEVICE, 0.7, (c.capacity() - c.allocatable()) + " of " + c.capacity() + " "
                        + c.resource() + " on " + c.node() + " marked unhealthy by the device plugin", id, "capacity"));
            }
            if (c.capacity() < c.expected()) {
                return Optional.of(Finding.of(Family.DEVICE, 0.6, c.node() + " advertises " + c.capacity() + " of "
                        + c.expected() + " " + c.resource() + ": a device disappeared", id, "capacity"));
            }
            return Optional.empty();
        }
        if (e.fact() instanceof Facts.NodeCondition c) {
            if ("Ready".equals(c.type())) {
                return "True".equals(c.status()) ? Optional.empty() : Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.8,
                        c.node() + " is not ready" + (c.message() == null ? "" : ": " + c.message()), id, "node-ready"));
            }
            // Node-level health agents (NVSentinel's syslog monitor, Node Problem Detector, the clouds'
            // agents) relay the kernel's XID lines in their conditions' messages: decoded by the catalogue.
            if ("True".equals(c.status())) {
                Optional<Finding> xid = kernelXid(c.message(), c.node(), id).or(() -> agentXid(c.message(), c.node(), id));
                if (xid.isPresent()) return xid;
            }
            return cluster.condition(c.type(), c.message()).filter(s -> "True".equals(c.status()))
                    .map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause() + " (" + c.node() + ")", id,
                            (s.fences() ? CANNOT_SERVE : "") + (s.nodeWide() ? NODE_WIDE : "") + "condition-" + c.type()));
        }
        if (e.fact() instanceof Facts.DeviceHealth h) {
            return cluster.unhealthyStates().contains(h.health()) ? Optional.of(Finding.of(Family.DEVICE, 0.75,
                    h.resource() + " " + h.resourceId() + " held by " + h.namespace() + "/" + h.pod() + " is " + h.health(), id,
                    "device-health")) : Optional.empty();
        }
        if (e.fact() instanceof Facts.ContainerState c) {
            if (c.role().nodeAgent()) {
                return c.ready() && c.restarts() == 0 ? Optional.empty() : Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.6,
                        "the " + c.role().name().toLowerCase().replace('_', ' ') + " on " + c.node() + " is "
                                + (c.reason() == null ? "not ready" : c.reason()), id, "node-agent").restartable());
            }
            if ("waiting".equals(c.state()) && c.reason() != null) {
                Optional<ClusterSignals.Signal> w = cluster.waiting(c.reason());
                if (w.isPresent()) {
                    return Optional.of(Finding.of(Family.parse(w.get().family()), w.get().weight(),
                            c.namespace() + "/" + c.pod() + ": " + w.get().cause(), id, "waiting-" + c.reason()));
                }
            }
            if ("waiting".equals(c.state()) && c.message() != null) {
                // The kubelet puts the runtime's error in the container's status as in its Failed event: the same rows read it.
                // Corroborated (the same error stops other tenants' containers on the node: a platform source), the node's
                // runtime starts no container there: it cannot serve.
                Optional<ClusterSignals.Signal> start = cluster.event("Failed", c.message());
                if (start.isPresent()) {
                    boolean nodeWide = e.platform() && Family.parse(start.get().family()) == Family.INFRASTRUCTURE;
                    return Optional.of(Finding.of(Family.parse(start.get().family()), start.get().weight(), start.get().cause()
                            + (nodeWide ? " (the same error stops other tenants' containers on " + c.node() + ")" : "") + ": "
                            + c.namespace() + "/" + c.pod(), id, (nodeWide || start.get().fences() ? CANNOT_SERVE : "") + "start-failed"));
                }
            }
            if (c.lastReason() != null) {
                Optional<ClusterSignals.Signal> t = cluster.termination(c.lastReason());
                if (t.isPresent()) {
                    return Optional.of(Finding.of(Family.parse(t.get().family()), t.get().weight(),
                            c.namespace() + "/" + c.pod() + ": " + t.get().cause(), id, "termination-" + c.lastReason()));
                }
            }
            // A crash loop alone is a symptom: it says something broke, not what.
            return "CrashLoopBackOff".equals(c.reason()) || c.restarts() > 0
                    ? Optional.of(Finding.of(Family.APPLICATION, 0.15, c.namespace() + "/" + c.pod() + " keeps restarting", id,
                            "crash-loop").asSymptom().restartable())
                    : Optional.empty();
        }
        if (e.fact() instanceof Facts.PodRejected r) {
            // The kubelet gives the same reason in the pod's status as in the event it writes beside: the event rows read it.
            return cluster.event(r.reason(), r.message()).map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause() + ": "
                    + r.namespace() + "/" + r.pod() + " on " + r.node(), id, (s.fences() ? CANNOT_SERVE : "") + "rejected-" + r.reason()));
        }
        if (e.fact() instanceof Facts.PodPending p) {
            Optional<ClusterSignals.Signal> own = p.reason() == null ? Optional.empty() : cluster.event(p.reason(), p.message());
            if (own.isPresent()) {
                return Optional.of(Finding.of(Family.parse(own.get().family()), own.get().weight(), own.get().cause() + ": "
                        + p.namespace() + "/" + p.pod() + " (" + p.message() + ")", id, "pending-" + p.reason()));
            }
            return cluster.event("FailedScheduling", p.message())
                    .map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause(), id, "pending").asSymptom());
        }
        if (e.fact() instanceof Facts.ClusterEvent ev) {
            Optional<Finding> found = kernelXid(ev.message(), ev.objectName(), id)
                    .or(() -> cluster.event(ev.reason(), ev.message())
                            .map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause() + ("Node".equals(ev.objectKind())
                                    ? " (" + ev.objectName() + ")" : ""), id, (s.fences() ? CANNOT_SERVE : "") + (s.nodeWide() ? NODE_WIDE : "")
                                    + "event-" + ev.reason())));
            boolean holds = cluster.event(ev.reason(), ev.message()).map(ClusterSignals.Signal::holds).orElse(false);
            boolean stale = !holds && ev.lastSeen() != null && readings.at() != null
                    && ev.lastSeen().isBefore(readings.at().minus(STALE_EVENT));
            // An event long before the alert is history: it may explain a pattern, not this incident.
            return stale ? found.map(f -> new Finding(f.family(), Math.min(f.weight(), HISTORY_WEIGHT), f.cause() + " (last seen "
                    + ev.lastSeen() + ")", f.evidenceIds(), f.group() + "-stale", true, f.degradation(), f.contained(),
                    f.restartHelps())) : found;
        }
        if (e.fact() instanceof Facts.LogMatch l) {
            Optional<Finding> xid = kernelXid(l.line(), l.namespace() + "/" + l.pod(), id);
            if (xid.isPresent()) {
                return xid.map(Finding::asSymptom);
            }
            return signatures.byId(l.signature()).map(s -> {
                Finding f = Finding.of(Family.parse(s.family()), s.weight(), s.cause(), id, "log-" + s.id()).asSymptom();
                return s.remedy() == SignatureCatalogue.Remedy.RESTART ? f.restartable() : f;
            });
        }
        if (e.fact() instanceof Facts.NodeLabel l) {
            Optional<ClusterSignals.Signal> planned = cluster.nodeLabel(l.key(), l.value()).filter(ClusterSignals.Signal::intended);
            if (planned.isPresent()) {
                return Optional.of(Finding.of(Family.INFRASTRUCTURE, Math.min(planned.get().weight(), HISTORY_WEIGHT), planned.get().cause()
                        + " (" + l.node() + " " + l.key() + "=" + l.value() + ")", id, PLANNED + l.key()).asSymptom());
            }
            return cluster.nodeLabel(l.key(), l.value()).map(s -> Finding.of(Family.parse(s.family()), s.weight(),
                    s.cause() + " (" + l.node() + " " + l.key() + "=" + l.value() + ")", id, (s.fences() ? CANNOT_SERVE : "") + "label-" + l.key()));
        }
        if (e.fact() instanceof Facts.NodeTaint t) {
            return cluster.nodeTaint(t.key(), t.value()).map(s -> s.intended()
                    ? Finding.of(Family.INFRASTRUCTURE, Math.min(s.weight(), HISTORY_WEIGHT), s.cause() + " (" + t.node() + " taint "
                            + t.key() + (t.value() == null ? "" : "=" + t.value()) + ")", id, (s.removesNode() ? LEAVING : PLANNED) + t.key())
                            .asSymptom()
                    : Finding.of(Family.parse(s.family()), s.weight(), s.cause() + " (" + t.node() + " taint " + t.key() + ")", id,
                            (s.fences() ? CANNOT_SERVE : "") + "taint-" + t.key()));
        }
        if (e.fact() instanceof Facts.NodeDeletion n) {
            if (n.requested() != null && readings.at() != null && n.requested().isBefore(readings.at().minus(STUCK_DELETION))) {
                // Hours on: the drain its finalizers wait for is not finishing (a budget that never allows the eviction, a finalizer
                // whose controller is gone). No longer a removal under way: the node's faults count, and a person is told.
                return Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.5, n.node() + " has been deleting since " + n.requested()
                        + (n.finalizers().isEmpty() ? "" : ", held by its finalizers " + String.join(", ", n.finalizers()))
                        + ": its removal is stuck (a disruption budget or a finalizer's controller), a person looks", id, "stuck-deletion"));
            }
            // Only a cluster-scoped actor deletes a Node, and its finalizers (the provisioner's) drain it first: leaving on purpose.
            return Optional.of(Finding.of(Family.INFRASTRUCTURE, HISTORY_WEIGHT, n.node() + " is being deleted" + (n.requested() == null
                    ? "" : " (since " + n.requested() + ")") + (n.finalizers().isEmpty() ? "" : ", its finalizers "
                    + String.join(", ", n.finalizers()) + " draining it first"), id, LEAVING + "deletion").asSymptom());
        }
        if (e.fact() instanceof Facts.SliceHost h) {
            // One host short of chips while the slice's other hosts have all theirs: that host's hardware,
            // not the device plugin everywhere (a rollout hits every host alike).
            boolean alone = h.allocatable() < h.capacity() && h.hosts() > 1 && h.wholeHosts() == h.hosts() - 1;
            return alone ? Optional.of(Finding.of(Family.DEVICE, 0.8, h.node() + " advertises " + h.allocatable() + " of " + h.capacity() + " "
                    + h.resource() + " while the other " + h.wholeHosts() + " hosts of slice pool " + h.pool() + " have all theirs: the host"
                    + " lost its chips, and the slice recovers only as a whole", id, "slice-host")) : Optional.empty();
        }
        if (e.fact() instanceof Facts.Unoffered u) {
            // Other nodes offer it, so it exists and is healthy elsewhere: this node's agent found none of its devices.
            return Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.6, u.node() + " offers no " + u.what() + " while " + u.offeredBy()
                    + " other nodes offer theirs: the node agent serving it found no device there, and " + u.pod() + " waits", id, "unoffered"));
        }
        if (e.fact() instanceof Facts.BehindPool v) {
            // Alone only a hint (a rolling upgrade leaves nodes behind for a while); beside a workload's own word that
            // the node's software is the problem it is the platform's corroboration (withCorroboratedHints).
            return Optional.of(Finding.of(Family.INFRASTRUCTURE, BEHIND_POOL_WEIGHT, v.node() + " runs " + v.label() + "=" + v.value()
                    + ", behind the " + v.poolValue() + " of " + v.peers() + " other nodes of its pool " + v.pool(), id, "behind-pool"));
        }
        if (e.fact() instanceof Facts.DeviceTaint t) {
            boolean enforced = "NoSchedule".equals(t.effect()) || "NoExecute".equals(t.effect());
            return Optional.of(Finding.of(Family.DEVICE, enforced ? 0.6 : 0.3,
                    "DRA device " + t.device() + " on " + t.node() + " tainted " + t.key(), id, "dra-taint"));
        }
        return Optional.empty();
    }

    /**
     * An XID the driver printed ("NVRM: Xid (PCI:…): 79, …", as Node Problem Detector forwards kernel
     * messages, or "Xid=79" as the device plugin logs it), classified by the catalogue.
     */
    private Optional<Finding> kernelXid(String text, String where, String id) {
        if (text == null) return Optional.empty();
        // A node agent may relay several kernel lines in one message (NVSentinel joins them with ';'):
        // the strongest says what the node needs.
        java.util.regex.Matcher m = KERNEL_XID.matcher(text);
        Finding best = null;
        while (m.find()) {
            int code = Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2));
            int next = text.indexOf(';', m.end());
            String rest = text.substring(m.end(), next < 0 ? text.length() : next);
            Optional<Finding> f = Optional.of(xids.get(code).map(x -> code == RECOVERY_XID ? recoveryFinding(x, rest, where, id)
                    : xidFinding(x, true, where, id)).orElseGet(() -> unknownXid(code, true, where, id)));
            if (f.isPresent() && (best == null || f.get().weight() > best.weight())) best = f.get();
        }
        return Optional.ofNullable(best);
    }

    /**
     * An XID a node agent names without the kernel's line ("ErrorCode:79 …" as NVSentinel writes it,
     * "XID 48 …", "Xid: 79"): decoded by the catalogue, the strongest counting.
     */
    private Optional<Finding> agentXid(String text, String where, String id) {
        if (text == null) return Optional.empty();
        java.util.regex.Matcher m = AGENT_XID.matcher(text);
        Finding best = null;
        while (m.find()) {
            int code = Integer.parseInt(m.group(1));
            Optional<Finding> f = Optional.of(xids.get(code).map(x -> xidFinding(x, true, where, id))
                    .orElseGet(() -> unknownXid(code, true, where, id)));
            if (f.isPresent() && (best == null || f.get().weight() > best.weight())) best = f.get();
        }
        return Optional.ofNullable(best);
    }

    private static final java.util.regex.Pattern AGENT_XID =
            java.util.regex.Pattern.compile("(?i)(?:\\bErrorCode:|\\bXID(?:\\s+error)?[\\s:=#]+)(\\d{2,3})\\b");

    /** XID 154: the driver's recovery-action flag for earlier XIDs, followed as the catalogue says. */
    static final int RECOVERY_XID = 154;

    private Finding recoveryFinding(XidCatalogue.Xid x, String text, String where, String id) {
        Optional<XidCatalogue.RecoveryAction> action = xids.recoveryIn(text);
        if (action.isEmpty()) return xidFinding(x, true, where, id);
        String flag = Integer.toHexString(action.get().flag());
        if (!action.get().fatal()) {
            return Finding.of(Family.DEVICE, HISTORY_WEIGHT, "XID 154 on " + where + ": the driver needs no recovery action (flag 0x"
                    + flag + ")", id, "xid-154").degrading();
        }
        return Finding.of(Family.DEVICE, 0.9, "XID 154 on " + where + ": the driver requires " + action.get().action()
                + " before the GPU can be used again (flag 0x" + flag + ")", id, "xid-154");
    }

    private static final java.util.regex.Pattern KERNEL_XID =
            java.util.regex.Pattern.compile("NVRM: Xid \\([^)]*\\): (\\d+)|\\bXid=(\\d+)");

    private Optional<Finding> metricFinding(Facts.MetricReading m, String id, Readings readings) {
        Optional<Toolset.Tool> tool = toolsets.forMetric(m.metric());
        if (tool.isEmpty() || tool.get().fault() == null) {
            return Optional.empty();
        }
        Toolset.Fault fault = tool.get().fault();
        String where = m.node() + (m.device() == null ? "" : " device " + m.device());
        if ("xid".equals(fault.catalogue())) {
            int code = (int) m.value();
            if (code == 0) return Optional.empty();
            boolean fresh = m.previous() == null || m.previous() != m.value();
            return Optional.of(xids.get(code).map(x -> xidFinding(x, fresh, where, id)).orElseGet(() -> unknownXid(code, fresh, where, id)));
        }
        if ("xid-count".equals(fault.catalogue())) {
            if (m.xid() == null || m.value() < fault.threshold()) return Optional.empty();
            int code = Integer.parseInt(m.xid());
            return xids.get(code).filter(x -> x.repeatingFamily() != null).map(x -> Finding.of(Family.parse(x.repeatingFamily()),
                    0.85, "XID " + code + " (" + x.meaning() + ") repeated " + String.valueOf((long) m.value())
                    + " times on " + where + ": the device, not the workloads", id, "xid-repeat-" + code));
        }
        double v = m.value() + (fault.sumWith() == null ? 0 : readings.value(m.node(), m.device(), fault.sumWith()));
        Double prev = m.previous();
        double weight = fault.weight();
        boolean tripped;
        switch (fault.when()) {
            case CHANGED:
                tripped = v != 0 && (prev == null || prev != v);
                break;
            case INCREASED:
                if (prev == null) {
                    // A counter off zero with no history: likely news, but not proven.
                    tripped = v > 0;
                    weight *= 0.7;
                } else {
                    tripped = v > prev;
                }
                break;
            case ABOVE:
                tripped = v >= fault.threshold();
                break;
            case BITS:
                tripped = ((long) v & fault.threshold().longValue()) != 0;
                break;
            case RATE:
                tripped = prev != null && (v - prev) / HISTORY_SECONDS >= fault.threshold();
                break;
            case IDLE:
                // Idle only means hung when the pod holding the device runs without complaint.
                // Nor when a member of its own workload is not yet scheduled: the others wait at rendezvous for it.
                tripped = v == 0 && m.pod() != null && !readings.troubled(m.namespace(), m.pod()) && !readings.peerPending(m.namespace(), m.pod());
                break;
            default:
                tripped = false;
        }
        if (!tripped) {
            return Optional.empty();
        }
        Finding f = Finding.of(Family.parse(fault.family()), weight, fault.cause() + " (" + where + ")", id,
                (fault.replaces() ? REPLACE_DEVICE : fault.awaitsReset() ? RESET_PENDING : fault.needsService() ? SERVICE_HARDWARE : "")
                        + tool.get().name());
        return Optional.of(fault.degrades() ? f.degrading() : f);
    }

    /**
     * An XID the catalogue does not know: a device fault for a person to look up, never a reason to fence
     * (read as the device's degradation, which escalates and leaves the node in service).
     */
    private static Finding unknownXid(int code, boolean fresh, String where, String id) {
        return Finding.of(Family.DEVICE, fresh ? 0.4 : 0.15, "XID " + code + " on " + where
                + " (not in the catalogue: a person looks it up in NVIDIA's XID catalog before anything is fenced)", id, "xid-" + code)
                .degrading();
    }

    private static Finding xidFinding(XidCatalogue.Xid x, boolean fresh, String where, String id) {
        // A fault a person must service is as certain as a fatal one, though the GPU still works: it does not go away.
        double weight = x.informational() ? HISTORY_WEIGHT : x.secondary() ? 0.2 : x.fatal() ? 0.9 : x.service() ? 0.75
                : x.degradation() ? 0.5 : 0.6;
        if (!fresh) {
            weight = Math.min(weight, HISTORY_WEIGHT);
        }
        Finding f = Finding.of(x.familyEnum(), weight, "XID " + x.code() + " (" + x.meaning() + ") on " + where
                + (fresh ? "" : ", reported before this alert"), id, x.secondary() ? "xid-secondary"
                        : (x.service() && fresh ? SERVICE_HARDWARE : "") + "xid-" + x.code());
        if (x.degradation() && !(x.service() && fresh)) f = f.degrading();
        if (x.contained()) f = f.containedToApp();
        if ("restart app".equals(x.action())) f = f.restartable();
        return f;
    }

    /** Lookups across a bundle's readings: sums of a device's metrics, and which pods are in trouble. */
    private static final class Readings {
        private final Map<String, Double> values = new java.util.HashMap<>();
        private final java.util.Set<String> troubledPods = new java.util.HashSet<>();
        private final java.time.Instant at;

        private final java.util.Set<String> pendingWorkloads = new java.util.HashSet<>();
        private final Map<String, String> workloadOf = new java.util.HashMap<>();

        Readings(EvidenceBundle bundle) {
            this.at = bundle.at();
            for (io.acceltriage.evidence.PodPlacement p : bundle.pods()) {
                if (p.workloadRef() != null) workloadOf.put(p.ref(), p.workloadRef());
            }
            for (Evidence e : bundle.items()) {
                if (e.fact() instanceof Facts.PodPending p) {
                    String w = p.workload() != null ? p.workload() : workloadOf.get(p.namespace() + "/" + p.pod());
                    if (w != null) pendingWorkloads.add(w);
                }
            }
            for (Evidence e : bundle.items()) {
                if (e.fact() instanceof Facts.MetricReading m) {
                    values.merge(m.node() + "|" + m.device() + "|" + m.metric(), m.value(), Double::sum);
                } else if (e.fact() instanceof Facts.ContainerState c) {
                    troubledPods.add(c.namespace() + "/" + c.pod());
                }
            }
        }

        double value(String node, String device, String metric) {
            return values.getOrDefault(node + "|" + device + "|" + metric, 0.0);
        }

        java.time.Instant at() {
            return at;
        }

        boolean peerPending(String namespace, String pod) {
            String w = workloadOf.get(namespace + "/" + pod);
            return w != null && pendingWorkloads.contains(w);
        }

        boolean troubled(String namespace, String pod) {
            return troubledPods.contains(namespace + "/" + pod);
        }
    }

    private static double round(double v) {
        return Math.round(Math.min(1, v) * 100) / 100.0;
    }
}
