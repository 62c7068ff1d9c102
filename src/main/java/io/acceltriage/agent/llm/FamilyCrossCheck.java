package io.acceltriage.agent.llm;

import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import java.util.Optional;

/**
 * Guardrail: the model's family is checked against the deterministic classifier's. When they
 * disagree nothing runs and a person gets both views: a model that misreads (or is talked into
 * misreading) the evidence cannot steer a mitigation.
 */
final class FamilyCrossCheck {

    private FamilyCrossCheck() {}

    /** Empty when they agree, else the escalation reason naming both views. */
    static Optional<String> disagreement(Family model, String modelCause, Diagnosis rules) {
        if (model == rules.family()) return Optional.empty();
        return Optional.of("the model and the rules disagree, so nothing runs: the model says " + model.wireName()
                + " (" + modelCause + "), the rules say " + rules.family().wireName() + " (" + rules.cause()
                + ", confidence " + rules.confidence() + ")");
    }
}
