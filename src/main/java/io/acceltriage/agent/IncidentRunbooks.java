package io.acceltriage.agent;

import io.acceltriage.diagnosis.Runbooks;
import java.util.Optional;

/** The runbook of a stored incident, chosen from the diagnosis its assessment document keeps. */
public final class IncidentRunbooks {

    private IncidentRunbooks() {}

    public static Optional<Runbooks.Runbook> of(Runbooks runbooks, String assessmentJson) {
        StoredAssessment a = StoredAssessment.read(assessmentJson);
        if (a == null || a.diagnosis() == null) return Optional.empty();
        StoredAssessment.Findings d = a.diagnosis();
        return runbooks.choose(d.family(), d.cause(),
                d.findings().stream().map(f -> new Runbooks.Clue(f.family(), f.cause(), f.weight())).toList());
    }
}
