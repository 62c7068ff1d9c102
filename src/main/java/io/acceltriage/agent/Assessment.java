package io.acceltriage.agent;

import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.Decision;
import java.util.List;

/**
 * The outcome of one triage: the evidence, the deterministic diagnosis, every proposal with its
 * verdict, whether humans must be told and why, and the summary they read. {@code mode} says who
 * investigated: "rules" (no model configured, or the model failed) or the model's name. {@code model}
 * is what the model did, its calls and tokens (null in rules mode). {@code workLost}: per training gang, the
 * work since its last checkpoint a restart throws away.
 */
public record Assessment(String mode, Subject subject, List<String> alerts, EvidenceBundle evidence, Diagnosis diagnosis,
        List<Judgement> judgements, List<String> escalationReasons, String summary, ModelRun model, List<WorkLost> workLost) {

    public Assessment {
        workLost = workLost == null ? List.of() : List.copyOf(workLost);
    }

    public Assessment(String mode, Subject subject, List<String> alerts, EvidenceBundle evidence, Diagnosis diagnosis,
            List<Judgement> judgements, List<String> escalationReasons, String summary, ModelRun model) {
        this(mode, subject, alerts, evidence, diagnosis, judgements, escalationReasons, summary, model, List.of());
    }

    public Assessment withSummary(String text) {
        return new Assessment(mode, subject, alerts, evidence, diagnosis, judgements, escalationReasons, text, model, workLost);
    }

    /** This assessment with the work its restarts lose, computed from its own evidence and verdicts. */
    public Assessment withWorkLost() {
        return new Assessment(mode, subject, alerts, evidence, diagnosis, judgements, escalationReasons, summary, model,
                WorkLost.of(evidence, judgements));
    }

    public boolean escalate() {
        return !escalationReasons.isEmpty();
    }

    public boolean awaitsApproval() {
        return judgements.stream().anyMatch(j -> j.verdict().decision() == Decision.APPROVE);
    }
}
