package io.acceltriage.agent;

import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.Finding;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Diagnoses for the planner's tests, built by hand so that a planner test does not depend on the
 * classifier: a family, a cause, a confidence, and the findings it rests on, each citing evidence of
 * the bundle it goes with.
 *
 * <pre>{@code
 * Diagnosis d = Diagnoses.device("XID 79 on GPU 2").because(xidId, 0.9).build();
 * }</pre>
 */
final class Diagnoses {

    /** What a finding says besides its family and weight (see {@link Finding}). */
    enum Trait { SYMPTOM, DEGRADATION, CONTAINED, RESTART_HELPS }

    private final Family family;
    private final String cause;
    private double confidence = 0.9;
    private boolean degradation;
    private final List<Finding> findings = new ArrayList<>();

    private Diagnoses(Family family, String cause) {
        this.family = family;
        this.cause = cause;
    }

    static Diagnoses of(Family family, String cause) {
        return new Diagnoses(family, cause);
    }

    static Diagnoses device(String cause) {
        return of(Family.DEVICE, cause);
    }

    static Diagnoses infrastructure(String cause) {
        return of(Family.INFRASTRUCTURE, cause);
    }

    static Diagnoses application(String cause) {
        return of(Family.APPLICATION, cause);
    }

    /** "No fault found", with what was looked at. */
    static Diagnosis none() {
        return new Diagnosis(Family.NONE, "no fault found in the evidence", 0.8, List.of(), List.of(), false, List.of());
    }

    Diagnoses confidence(double confidence) {
        this.confidence = confidence;
        return this;
    }

    /** The device works but is wearing out: the diagnosis says so (its findings should too). */
    Diagnoses degradation() {
        this.degradation = true;
        return this;
    }

    /** A reason of the diagnosis' family, resting on one evidence item. */
    Diagnoses because(String evidenceId, double weight, Trait... traits) {
        return finding(family, evidenceId, weight, traits);
    }

    /** A reason of another family, weighed and set aside. */
    Diagnoses setAside(Family other, String evidenceId, double weight, Trait... traits) {
        return finding(other, evidenceId, weight, traits);
    }

    /** A reason of the diagnosis' family in a group the planner reads (the classifier's group prefixes). */
    Diagnoses because(String evidenceId, double weight, String group) {
        findings.add(new Finding(family, weight, cause + " [" + evidenceId + "]", List.of(evidenceId), group, false, false, false, false));
        return this;
    }

    /** A symptom of another family in a group the planner reads (the classifier's "consequence/" of the fault, …). */
    Diagnoses setAsideIn(Family other, String evidenceId, double weight, String group) {
        findings.add(new Finding(other, weight, cause + " [" + evidenceId + "]", List.of(evidenceId), group, true, false, false, false));
        return this;
    }

    private Diagnoses finding(Family f, String evidenceId, double weight, Trait... traits) {
        Set<Trait> t = traits.length == 0 ? EnumSet.noneOf(Trait.class) : EnumSet.of(traits[0], traits);
        findings.add(new Finding(f, weight, cause + " [" + evidenceId + "]", List.of(evidenceId), "test-" + findings.size(),
                t.contains(Trait.SYMPTOM), t.contains(Trait.DEGRADATION), t.contains(Trait.CONTAINED),
                t.contains(Trait.RESTART_HELPS) || t.contains(Trait.CONTAINED)));
        return this;
    }

    Diagnosis build() {
        LinkedHashSet<String> ids = new LinkedHashSet<>();
        findings.stream().filter(f -> f.family() == family).forEach(f -> ids.addAll(f.evidenceIds()));
        return new Diagnosis(family, cause, confidence, List.copyOf(ids), List.copyOf(findings), degradation, List.of());
    }
}
