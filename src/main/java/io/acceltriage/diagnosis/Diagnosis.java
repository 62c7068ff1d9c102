package io.acceltriage.diagnosis;

import java.util.List;

/**
 * The deterministic verdict on an incident: family, main cause, confidence in [0, 1], and the evidence
 * ids it rests on. {@code findings} keeps every reason considered, of every family, so a reader can
 * see what was weighed and set aside; {@code disagreements}, where kinds of source contradict each
 * other (what weighing reasons cannot settle).
 */
public record Diagnosis(Family family, String cause, double confidence, List<String> evidenceIds,
        List<Finding> findings, boolean degradation, List<String> notes, List<Disagreement> disagreements) {

    public Diagnosis {
        disagreements = disagreements == null ? List.of() : List.copyOf(disagreements);
    }

    /** A diagnosis whose sources do not contradict each other (or were not compared). */
    public Diagnosis(Family family, String cause, double confidence, List<String> evidenceIds, List<Finding> findings,
            boolean degradation, List<String> notes) {
        this(family, cause, confidence, evidenceIds, findings, degradation, notes, List.of());
    }

    /** Findings of the chosen family. */
    public List<Finding> supporting() {
        return findings.stream().filter(f -> f.family() == family).toList();
    }

    /**
     * The device fault is contained or only degradation: every finding about the device's own state
     * says so (symptoms such as log lines do not count), so the node itself may stay in service.
     */
    public boolean nodeMayStay() {
        List<Finding> state = supporting().stream().filter(f -> !f.symptom()).toList();
        return !state.isEmpty() && state.stream().allMatch(f -> f.degradation() || f.contained());
    }

    /** Every strong reason of the family expects a restart to clear it. */
    public boolean restartHelps() {
        List<Finding> strong = supporting().stream().filter(f -> f.weight() >= 0.4).toList();
        return !strong.isEmpty() && strong.stream().allMatch(Finding::restartHelps);
    }
}
