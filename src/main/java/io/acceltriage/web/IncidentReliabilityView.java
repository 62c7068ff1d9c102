package io.acceltriage.web;

import io.acceltriage.agent.IncidentRunbooks;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.reliability.ObjectiveCheck;
import io.acceltriage.reliability.Reliability;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.ArrayList;
import java.util.List;

/**
 * What the incident page's reliability partial shows ({@code inject:incidentReliability.of(i.id)}):
 * the time to each stage, the stage objectives met, breached or pending, and the incident's runbook.
 * Read by the template itself, so the page's own view needs no field for it.
 */
@ApplicationScoped
@Named("incidentReliability")
public class IncidentReliabilityView {

    /** A stage and how long after the first alert it was reached; {@code took} null when it was not (yet). */
    public record Stage(String name, String took) {}

    public record Check(String objective, String stage, String within, String status, String took) {}

    public record View(List<Stage> stages, int gpusFenced, double gpuHoursLost, List<Check> checks, Runbooks.Runbook runbook,
            Impact impact, io.acceltriage.reliability.GpuHoursLost lost) {}

    /** What the fault did to the service: a row per reading, or the one line saying why there is none. */
    public record Impact(String status, String summary, List<ImpactRow> rows, String trainingLost, String workAtRisk) {}

    public record ImpactRow(String namespace, String tool, String measure, String before, String after) {}

    private final Reliability reliability;
    private final IncidentStore incidents;
    private final Runbooks runbooks;

    IncidentReliabilityView(Reliability reliability, IncidentStore incidents, Runbooks runbooks) {
        this.reliability = reliability;
        this.incidents = incidents;
        this.runbooks = runbooks;
    }

    public View of(String incidentId) {
        Reliability.IncidentReport r = reliability.incident(incidentId).orElse(null);
        if (r == null) return null;
        var t = r.timing();
        List<Stage> stages = List.of(new Stage("detect (fault → alert)", human(t.toDetect())), new Stage("decide", human(t.toDecide())),
                new Stage("mitigate", human(t.toMitigate())), new Stage("verify", human(t.toVerify())),
                new Stage("return to service", human(t.toReturn())), new Stage("resolve", human(t.toResolve())));
        List<Check> checks = new ArrayList<>();
        for (ObjectiveCheck c : r.checks()) {
            checks.add(new Check(c.objective(), c.stage(), human(c.withinSeconds()), c.status().wireName(), human(c.seconds())));
        }
        Runbooks.Runbook runbook = incidents.find(incidentId).flatMap(i -> IncidentRunbooks.of(runbooks, i.assessmentJson())).orElse(null);
        return new View(stages, t.gpusFenced(), t.gpuHoursLost(), checks, runbook, impact(t.impact()), t.lost());
    }

    static Impact impact(io.acceltriage.reliability.ServiceImpact i) {
        if (i == null) return null;
        List<ImpactRow> rows = new ArrayList<>();
        for (var r : i.readings()) {
            rows.add(new ImpactRow(r.namespace(), r.tool(), r.measure(), figure(r.measure(), r.before()), figure(r.measure(), r.after())));
        }
        return new Impact(i.status().wireName(), i.summary(), rows, human(i.trainingSecondsLost()), human(i.workAtRiskSeconds()));
    }

    private static String figure(String measure, Double v) {
        if (v == null) return null;
        if ("failed-requests".equals(measure)) return String.valueOf(Math.round(v));
        return "checkpoint-age".equals(measure) ? human(v) : String.format(java.util.Locale.ROOT, "%.3g s", v);
    }

    private static String human(java.time.Duration d) {
        return d == null ? null : human(d.toMillis() / 1000.0);
    }

    static String human(Double seconds) {
        if (seconds == null) return null;
        if (seconds < 60) return String.format(java.util.Locale.ROOT, "%.1f s", seconds);
        long s = Math.round(seconds);
        if (s < 3600) return s / 60 + " min " + s % 60 + " s";
        return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }
}
