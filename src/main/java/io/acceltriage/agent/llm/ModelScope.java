package io.acceltriage.agent.llm;

import io.acceltriage.agent.Assessment;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Disagreement;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Workload;
import io.acceltriage.incident.Correlator;
import java.util.Optional;

/**
 * Where the model adds what the rules cannot, decided per live incident. The rules are sure of most
 * incidents (an XID 79 is an XID 79): asking the model to investigate those again costs tokens and
 * seconds and can only agree or be overruled. It investigates where the rules are weak — a low
 * confidence, "no fault found" while a workload is visibly broken, sources that contradict each
 * other (which the rules weigh but cannot reconcile), a fleet-wide pattern (what the affected nodes
 * share) — and writes the human summary for every incident, which a template does poorly.
 */
final class ModelScope {

    /**
     * The default of {@code acceltriage.llm.investigate-below}: below it the rules' own plan mostly
     * cannot act (the default policy asks 0.6 to 0.8 of every mitigation), so a second, independent
     * reading of the evidence is worth its cost.
     */
    static final double UNSURE_BELOW = 0.7;

    private ModelScope() {}

    /** With the default threshold. */
    static Optional<String> investigateBecause(Assessment rules) {
        return investigateBecause(rules, UNSURE_BELOW);
    }

    /** Why the model should investigate this incident; empty when the summary is all it adds. */
    static Optional<String> investigateBecause(Assessment rules, double unsureBelow) {
        Diagnosis d = rules.diagnosis();
        if (Correlator.isFleet(rules.subject())) {
            return Optional.of("a fleet incident: what do the affected nodes share? (" + rules.alerts().get(0) + ")");
        }
        if (!d.disagreements().isEmpty()) {
            Disagreement first = d.disagreements().get(0);
            return Optional.of("sources disagree (" + first.between().name().toLowerCase().replace('_', ' ') + "): " + first.detail());
        }
        if (d.family() == Family.NONE) {
            return brokenWorkload(rules.evidence()).map(w -> "the rules found no fault but " + w);
        }
        if (d.confidence() < unsureBelow) {
            return Optional.of(String.format("the rules are unsure (%s, confidence %.2f)", d.family().wireName(), d.confidence()));
        }
        // 1 means every incident (as documented), also one the rules are wholly sure of: confidence 1.0 is not below it.
        if (unsureBelow >= 1) {
            return Optional.of(String.format("every incident is investigated (investigate-below 1; %s, confidence %.2f)",
                    d.family().wireName(), d.confidence()));
        }
        return Optional.empty();
    }

    /** The first visibly broken workload in the bundle: a crashing or unready container, a pending pod, missing replicas. */
    static Optional<String> brokenWorkload(EvidenceBundle b) {
        for (var e : b.of(Facts.ContainerState.class)) {
            Facts.ContainerState c = (Facts.ContainerState) e.fact();
            if (c.role() != null && c.role().nodeAgent()) continue;
            return Optional.of(c.namespace() + "/" + c.pod() + " is " + (c.reason() == null ? c.state() : c.reason()) + " [" + e.id() + "]");
        }
        for (var e : b.of(Facts.PodPending.class)) {
            Facts.PodPending p = (Facts.PodPending) e.fact();
            return Optional.of(p.namespace() + "/" + p.pod() + " is pending [" + e.id() + "]");
        }
        for (Workload w : b.workloads()) {
            if (w.replicas() != null && w.availableReplicas() != null && w.availableReplicas() < w.replicas()) {
                return Optional.of(w.ref() + " has " + w.availableReplicas() + " of " + w.replicas() + " replicas available");
            }
        }
        return Optional.empty();
    }
}
