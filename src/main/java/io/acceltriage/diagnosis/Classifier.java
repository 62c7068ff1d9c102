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

    private final XidCatalogue xids;
    private final Toolsets toolsets;
    private final SignatureCatalogue signatures;
    private final ClusterSignals cluster;

    public Classifier(XidCatalogue xids, Toolsets toolsets, SignatureCatalogue signatures, ClusterSignals cluster) {
        this.xids = xids;
        this.toolsets = toolsets;
        this.signatures = signatures;
        this.cluster = cluster;
    }

    public Diagnosis classify(EvidenceBundle bundle) {
        List<Finding> findings = new ArrayList<>();
        for (Evidence e : bundle.items()) {
            findingFor(e).ifPresent(findings::add);
        }
        Map<Family, Double> scores = new EnumMap<>(Family.class);
        for (Finding f : findings) {
            scores.merge(f.family(), f.weight(), (a, b) -> 1 - (1 - a) * (1 - b));
        }
        List<Map.Entry<Family, Double>> ranked = scores.entrySet().stream()
                .sorted(Map.Entry.<Family, Double>comparingByValue().reversed()).toList();
        List<String> notes = new ArrayList<>();
        for (Gap g : bundle.gaps()) {
            notes.add(g.source().name().toLowerCase() + " unavailable: " + g.reason());
        }
        boolean metricsMissing = bundle.gaps().stream().anyMatch(g -> g.source() == Source.METRICS);

        if (ranked.isEmpty() || ranked.get(0).getValue() < FAULT_THRESHOLD) {
            double confidence = metricsMissing ? 0.4 : 0.8;
            if (!ranked.isEmpty()) confidence -= ranked.get(0).getValue();
            List<String> looked = findings.stream().flatMap(f -> f.evidenceIds().stream()).distinct().toList();
            return new Diagnosis(Family.NONE, "no fault found in the evidence", round(Math.max(0.05, confidence)), looked,
                    findings, false, notes);
        }
        Family family = ranked.get(0).getKey();
        double best = ranked.get(0).getValue();
        double second = ranked.size() > 1 ? ranked.get(1).getValue() : 0;
        double confidence = best - 0.5 * second;
        if (metricsMissing) {
            confidence -= 0.15;
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
                findings, degradation, notes);
    }

    private Optional<Finding> findingFor(Evidence e) {
        String id = e.id();
        if (e.fact() instanceof Facts.MetricReading m) {
            return metricFinding(m, id);
        }
        if (e.fact() instanceof Facts.AcceleratorCapacity c) {
            if (c.expected() > 0 && c.capacity() == 0 || c.capacity() > 0 && c.allocatable() == 0) {
                return Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.65,
                        c.node() + " advertises no " + c.resource() + ": the device plugin is not serving its devices", id));
            }
            if (c.allocatable() < c.capacity()) {
                return Optional.of(Finding.of(Family.DEVICE, 0.7, (c.capacity() - c.allocatable()) + " of " + c.capacity() + " "
                        + c.resource() + " on " + c.node() + " marked unhealthy by the device plugin", id));
            }
            if (c.capacity() < c.expected()) {
                return Optional.of(Finding.of(Family.DEVICE, 0.6, c.node() + " advertises " + c.capacity() + " of "
                        + c.expected() + " " + c.resource() + ": a device disappeared", id));
            }
            return Optional.empty();
        }
        if (e.fact() instanceof Facts.NodeCondition c) {
            if ("Ready".equals(c.type())) {
                return "True".equals(c.status()) ? Optional.empty() : Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.8,
                        c.node() + " is not ready" + (c.message() == null ? "" : ": " + c.message()), id));
            }
            return cluster.condition(c.type()).filter(s -> "True".equals(c.status()))
                    .map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause() + " (" + c.node() + ")", id));
        }
        if (e.fact() instanceof Facts.DeviceHealth h) {
            return cluster.unhealthyStates().contains(h.health()) ? Optional.of(Finding.of(Family.DEVICE, 0.75,
                    h.resource() + " " + h.resourceId() + " held by " + h.namespace() + "/" + h.pod() + " is " + h.health(), id))
                    : Optional.empty();
        }
        if (e.fact() instanceof Facts.ContainerState c) {
            if (c.role().nodeAgent()) {
                return c.ready() && c.restarts() == 0 ? Optional.empty() : Optional.of(Finding.of(Family.INFRASTRUCTURE, 0.6,
                        "the " + c.role().name().toLowerCase().replace('_', ' ') + " on " + c.node() + " is "
                                + (c.reason() == null ? "not ready" : c.reason()), id).restartable());
            }
            if (c.lastReason() != null) {
                Optional<ClusterSignals.Signal> t = cluster.termination(c.lastReason());
                if (t.isPresent()) {
                    return Optional.of(Finding.of(Family.parse(t.get().family()), t.get().weight(),
                            c.namespace() + "/" + c.pod() + ": " + t.get().cause(), id));
                }
            }
            // A crash loop alone is a symptom: it says something broke, not what.
            return "CrashLoopBackOff".equals(c.reason()) || c.restarts() > 0
                    ? Optional.of(Finding.of(Family.APPLICATION, 0.15, c.namespace() + "/" + c.pod() + " keeps restarting", id).restartable())
                    : Optional.empty();
        }
        if (e.fact() instanceof Facts.PodPending p) {
            return cluster.event("FailedScheduling", p.message())
                    .map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause(), id));
        }
        if (e.fact() instanceof Facts.ClusterEvent ev) {
            return cluster.event(ev.reason(), ev.message()).map(s -> Finding.of(Family.parse(s.family()), s.weight(), s.cause(), id));
        }
        if (e.fact() instanceof Facts.LogMatch l) {
            return signatures.byId(l.signature()).map(s -> {
                Finding f = Finding.of(Family.parse(s.family()), s.weight(), s.cause(), id);
                return s.remedy() == SignatureCatalogue.Remedy.RESTART ? f.restartable() : f;
            });
        }
        if (e.fact() instanceof Facts.DeviceTaint t) {
            boolean enforced = "NoSchedule".equals(t.effect()) || "NoExecute".equals(t.effect());
            return Optional.of(Finding.of(Family.DEVICE, enforced ? 0.6 : 0.3,
                    "DRA device " + t.device() + " on " + t.node() + " tainted " + t.key(), id));
        }
        return Optional.empty();
    }

    private Optional<Finding> metricFinding(Facts.MetricReading m, String id) {
        Optional<Toolset.Tool> tool = toolsets.forMetric(m.metric());
        if (tool.isEmpty() || tool.get().fault() == null) {
            return Optional.empty();
        }
        Toolset.Fault fault = tool.get().fault();
        if ("xid".equals(fault.catalogue())) {
            return xidFinding(m, id);
        }
        double v = m.value();
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
            default:
                tripped = false;
        }
        if (!tripped) {
            return Optional.empty();
        }
        Finding f = Finding.of(Family.parse(fault.family()), weight, fault.cause() + " (" + m.node()
                + (m.device() == null ? "" : " device " + m.device()) + ")", id);
        return Optional.of(fault.degrades() ? f.degrading() : f);
    }

    private Optional<Finding> xidFinding(Facts.MetricReading m, String id) {
        int code = (int) m.value();
        if (code == 0) {
            return Optional.empty();
        }
        boolean fresh = m.previous() == null || m.previous() != m.value();
        String where = m.node() + (m.device() == null ? "" : " GPU " + m.device());
        Optional<XidCatalogue.Xid> known = xids.get(code);
        if (known.isEmpty()) {
            return Optional.of(Finding.of(Family.DEVICE, fresh ? 0.4 : 0.15, "XID " + code + " on " + where
                    + " (not in the catalogue: look it up in NVIDIA's XID catalog)", id));
        }
        XidCatalogue.Xid x = known.get();
        double weight = x.secondary() ? 0.2 : x.fatal() ? 0.9 : x.degradation() ? 0.5 : 0.6;
        if (!fresh) {
            weight = Math.min(weight, 0.25);
        }
        Finding f = Finding.of(x.familyEnum(), weight, "XID " + code + " (" + x.meaning() + ") on " + where
                + (fresh ? "" : ", reported before this alert"), id);
        if (x.degradation()) f = f.degrading();
        if (x.contained()) f = f.containedToApp();
        if (x.familyEnum() == Family.APPLICATION) f = f.restartable();
        return Optional.of(f);
    }

    private static double round(double v) {
        return Math.round(Math.min(1, v) * 100) / 100.0;
    }
}
