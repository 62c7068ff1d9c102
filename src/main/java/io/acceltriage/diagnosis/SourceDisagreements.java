package io.acceltriage.diagnosis;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Fact;
import io.acceltriage.evidence.Facts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where kinds of source contradict each other about one incident, found over the classifier's
 * findings: Kubernetes' device health against the exporter's readings of the same node or device,
 * and platform sources against tenant sources. The classifier weighs reasons; it cannot tell which
 * witness is wrong (a device plugin's false alarm, an exporter that lost the GPU, a tenant's forged
 * log line), so a disagreement is a typed fact for the responder, not a change of family.
 */
final class SourceDisagreements {

    /** A reason must weigh this much to count as a side's reading (a symptom or a hint is not one). */
    static final double SIDE_WEIGHT = 0.5;
    private static final int CITED_READINGS = 2;
    /** What a fatal XID or an equally strong device reading weighs (the classifier gives a fatal XID 0.9). */
    static final double FATAL_WEIGHT = 0.85;

    private SourceDisagreements() {}

    /**
     * {@code watchesDevices}: the reading is of a series the toolsets judge device faults on (the XID
     * gauge, ECC, remapping, ...); an exporter's utilisation or temperature alone cannot contradict a
     * device plugin.
     */
    static List<Disagreement> of(List<Finding> findings, EvidenceBundle b, java.util.function.Predicate<Facts.MetricReading> watchesDevices) {
        List<Disagreement> out = new ArrayList<>();
        kubernetesSaysFaultExporterNone(findings, b, watchesDevices).ifPresent(out::add);
        exporterSaysFaultKubernetesHealthy(findings, b).ifPresent(out::add);
        platformAndTenant(findings, b).ifPresent(out::add);
        return out;
    }

    /** A device fault in Kubernetes' own view of a node while the node's exporter, read, shows none. */
    private static Optional<Disagreement> kubernetesSaysFaultExporterNone(List<Finding> findings, EvidenceBundle b,
            java.util.function.Predicate<Facts.MetricReading> watchesDevices) {
        Map<String, Finding> kube = new LinkedHashMap<>();
        for (Finding f : findings) {
            if (f.family() != Family.DEVICE || f.weight() < Classifier.FAULT_THRESHOLD || f.symptom()) continue;
            for (Evidence e : evidence(f, b)) {
                if (e.platform() && kubernetesDeviceHealth(e.fact())) {
                    Classifier.nodeOfFact(e.fact()).ifPresent(n -> kube.putIfAbsent(n, f));
                }
            }
        }
        for (Map.Entry<String, Finding> k : kube.entrySet()) {
            String node = k.getKey();
            List<Evidence> readings = b.items().stream().filter(e -> e.platform() && e.fact() instanceof Facts.MetricReading m
                    && node.equals(m.node()) && watchesDevices.test(m)).toList();
            if (readings.isEmpty()) continue; // no exporter: nothing contradicts Kubernetes, a source is missing
            boolean exporterFault = findings.stream().anyMatch(f -> f.family() == Family.DEVICE && f.weight() >= Classifier.FAULT_THRESHOLD
                    && evidence(f, b).stream().anyMatch(readings::contains));
            if (exporterFault) continue;
            Set<String> ids = new LinkedHashSet<>(k.getValue().evidenceIds());
            readings.stream().limit(CITED_READINGS).forEach(e -> ids.add(e.id()));
            return Optional.of(new Disagreement(Disagreement.Between.KUBERNETES_AND_EXPORTER, "Kubernetes reports a device fault on "
                    + node + " (" + k.getValue().cause() + ") while the exporter's " + readings.size() + " readings of " + node
                    + " show none", List.copyOf(ids)));
        }
        return Optional.empty();
    }

    /**
     * A fatal device fault in the exporter's readings of a GPU that Kubernetes (KEP-4680) reports
     * Healthy. Repeats of the XIDs the device plugin's health check skips by design (13, 31, 109: the
     * application's unless repeating) do not count: Healthy is what the plugin says for them.
     */
    private static Optional<Disagreement> exporterSaysFaultKubernetesHealthy(List<Finding> findings, EvidenceBundle b) {
        for (Finding f : findings) {
            if (f.family() != Family.DEVICE || f.weight() < FATAL_WEIGHT || f.group().startsWith("xid-repeat-") || f.degradation()
                    || f.contained() || f.symptom()) continue;
            for (Evidence e : evidence(f, b)) {
                if (!(e.platform() && e.fact() instanceof Facts.MetricReading m) || m.uuid() == null || m.uuid().isBlank()) continue;
                Optional<Evidence> healthy = b.items().stream().filter(h -> h.platform() && h.fact() instanceof Facts.DeviceHealth d
                        && m.uuid().equals(d.resourceId()) && "Healthy".equals(d.health())).findFirst();
                if (healthy.isPresent()) {
                    return Optional.of(new Disagreement(Disagreement.Between.KUBERNETES_AND_EXPORTER, "the exporter reports " + f.cause()
                            + " while Kubernetes reports GPU " + m.uuid() + " Healthy", List.of(e.id(), healthy.get().id())));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A tenant's claim of a device fault no platform source shows (the classifier keeps it as a
     * {@link Classifier#TENANT_CLAIM}), or platform and tenant sources whose strongest readings name
     * different families.
     */
    private static Optional<Disagreement> platformAndTenant(List<Finding> findings, EvidenceBundle b) {
        Optional<Finding> claim = findings.stream().filter(f -> Classifier.TENANT_CLAIM.equals(f.group())).findFirst();
        if (claim.isPresent()) {
            return Optional.of(new Disagreement(Disagreement.Between.PLATFORM_AND_TENANT, claim.get().cause(), claim.get().evidenceIds()));
        }
        Optional<Finding> platform = strongest(findings, b, true);
        Optional<Finding> tenant = strongest(findings, b, false);
        if (platform.isEmpty() || tenant.isEmpty() || platform.get().family() == tenant.get().family()) return Optional.empty();
        List<String> ids = new ArrayList<>(platform.get().evidenceIds());
        tenant.get().evidenceIds().stream().filter(id -> !ids.contains(id)).forEach(ids::add);
        return Optional.of(new Disagreement(Disagreement.Between.PLATFORM_AND_TENANT, "platform sources point at "
                + platform.get().family().wireName() + " (" + platform.get().cause() + ") and tenant sources at "
                + tenant.get().family().wireName() + " (" + tenant.get().cause() + ")", ids));
    }

    /** The strongest reason resting only on one side's sources (platform: not a symptom). */
    private static Optional<Finding> strongest(List<Finding> findings, EvidenceBundle b, boolean platform) {
        return findings.stream().filter(f -> f.family() != Family.NONE && f.weight() >= SIDE_WEIGHT && !(platform && f.symptom()))
                .filter(f -> {
                    List<Evidence> es = evidence(f, b);
                    return !es.isEmpty() && es.stream().allMatch(e -> e.platform() == platform);
                })
                .max(Comparator.comparingDouble(Finding::weight));
    }

    private static List<Evidence> evidence(Finding f, EvidenceBundle b) {
        return f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).toList();
    }

    private static boolean kubernetesDeviceHealth(Fact fact) {
        return fact instanceof Facts.AcceleratorCapacity || fact instanceof Facts.DeviceHealth || fact instanceof Facts.NodeCondition
                || fact instanceof Facts.DeviceTaint || fact instanceof Facts.SliceHost;
    }
}
