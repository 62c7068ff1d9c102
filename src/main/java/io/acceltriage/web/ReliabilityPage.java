package io.acceltriage.web;

import io.acceltriage.action.StoredHistory;
import io.acceltriage.drill.DrillResult;
import io.acceltriage.drill.DrillRunner;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import io.acceltriage.policy.ActionHistory;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicySource;
import io.acceltriage.reliability.IncidentTiming;
import io.acceltriage.reliability.Reliability;
import io.acceltriage.store.Database;
import io.acceltriage.web.charts.Charts;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * /reliability: the reliability report as charts drawn on the server — how long each family took to
 * detect, decide, mitigate and resolve over the window, GPU-hours lost per pool, incidents per family, and
 * the GPUs and nodes the policy's repeat-offender rule is counting, the drills' recent runs — with the numbers in a table
 * under them for whoever would rather read.
 */
@Path("/reliability")
@Produces(MediaType.TEXT_HTML)
class ReliabilityPage {

    /** One chart: its id on the page, a heading, the SVG, and a line saying what it counts. */
    record Chart(String id, String heading, String svg, String note) {}

    record View(String since, String pool, int incidents, boolean truncated, List<Chart> charts, List<Reliability.FamilyReport> families,
            List<Chart> objectives, Chart drills, String error) {}

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance reliability(View view);
    }

    private static final DateTimeFormatter TICK = DateTimeFormatter.ofPattern("MM-dd HH:mm").withZone(ZoneOffset.UTC);

    private final Reliability reliability;
    private final ActionHistory history;
    private final PolicySource policy;

    private final io.acceltriage.history.FaultHistory faults;
    private final DrillRunner drills;

    ReliabilityPage(Reliability reliability, Database database, PolicySource policy, io.acceltriage.history.FaultHistory faults,
            DrillRunner drills) {
        this.reliability = reliability;
        this.drills = drills;
        // The same records the policy engine's repeat-offender rules read (the actions table for remediations,
        // the fault history for fatal XIDs), not a second count.
        this.history = new StoredHistory(database);
        this.faults = faults;
        this.policy = policy;
    }

    @GET
    public Response page(@QueryParam("since") String since, @QueryParam("pool") String pool) {
        Instant from;
        String p;
        try {
            from = Rfc3339.param("since", since);
            p = ReliabilityResource.pool(pool);
        } catch (InvalidPayload e) {
            return Response.status(400).entity(Templates.reliability(new View(since, pool, 0, false, List.of(), List.of(), List.of(),
                    null, e.getMessage()))).build();
        }
        Instant start = from == null ? Instant.now().minus(ReliabilityResource.DEFAULT_WINDOW) : from;
        Reliability.Report r = reliability.since(start, p);
        List<Chart> charts = new ArrayList<>();
        charts.add(stage("detect", "Time to detect", r.timings(), IncidentTiming::toDetect,
                "from the fault's start (the earliest alert's startsAt) to the first alert received; incidents whose alerts carry no"
                        + " startsAt are left out"));
        charts.add(stage("decide", "Time to decide", r.timings(), IncidentTiming::toDecide,
                "from the first alert received to the first policy verdict (or the diagnosis when nothing was proposed)"));
        charts.add(stage("mitigate", "Time to mitigate", r.timings(), IncidentTiming::toMitigate,
                "from the first alert received to the first action that finished"));
        charts.add(stage("resolve", "Time to resolve", r.timings(), IncidentTiming::toResolve,
                "from the first alert received to the incident's resolution"));
        charts.add(new Chart("gpu-hours", "GPU-hours lost per pool", Charts.bars("GPU-hours lost per pool",
                sum(r.timings(), t -> t.pool() == null ? "(no pool)" : t.pool(), IncidentTiming::gpuHoursLost), "GPU-h"),
                "each kind counted once: GPUs fenced by a cordon or drain that took effect (× the hours it held), the work since the last"
                        + " checkpoint a restart threw away, and the training time a measured slowdown cost (× the job's GPUs)"));
        charts.add(new Chart("per-family", "Incidents per family", Charts.bars("Incidents per family",
                sum(r.timings(), t -> t.family() == null ? "unknown" : t.family(), t -> 1.0), "incidents"), r.incidents() + " incidents"
                + (r.truncated() ? " (the report stops at the newest " + r.incidents() + ")" : "")));
        charts.addAll(repeatOffenders(policy.current(), Instant.now()));
        return Response.ok(Templates.reliability(new View(from == null ? "" : since, p == null ? "" : p, r.incidents(), r.truncated(), charts,
                r.byFamily(), objectives(r), drills(drills.results(MAX_DRILL_RESULTS), start), null))).build();
    }

    /** One line per family: each incident of it at the time it was received, and how long that stage took. */
    static Chart stage(String id, String heading, List<IncidentTiming> timings, Function<IncidentTiming, Duration> stage, String note) {
        Map<String, List<Charts.Point>> byFamily = new TreeMap<>();
        for (IncidentTiming t : timings) {
            Duration d = stage.apply(t);
            if (d == null || t.receivedAt() == null) continue;
            byFamily.computeIfAbsent(t.family() == null ? "unknown" : t.family(), k -> new ArrayList<>())
                    .add(new Charts.Point(t.receivedAt().getEpochSecond(), d.toMillis() / 1000.0));
        }
        List<Charts.Series> series = new ArrayList<>();
        byFamily.forEach((family, points) -> series.add(new Charts.Series(family, points)));
        return new Chart(id, heading, Charts.line(heading + " per family, seconds", series,
                x -> TICK.format(Instant.ofEpochSecond((long) x)), "s"), note);
    }

    /** Bars of a sum per key, largest first. */
    static List<Charts.Bar> sum(List<IncidentTiming> timings, Function<IncidentTiming, String> key, Function<IncidentTiming, Double> value) {
        Map<String, Double> sums = timings.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.summingDouble(value::apply)));
        return sums.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> new Charts.Bar(e.getKey(), Math.round(e.getValue() * 1000) / 1000.0)).toList();
    }

    /** How many recorded drill results the page reads (the runner reads the last 30 days of them, newest first). */
    static final int MAX_DRILL_RESULTS = 500;

    /** How many runs a drill's strip shows: its newest. */
    static final int RUNS_PER_DRILL = 12;

    /**
     * The drills' recent runs in the window, a strip per drill and mode (a sandbox run and a shadow run prove different
     * things), oldest to newest, each run passed or failed with its time, incident and problem on hover; null when none ran.
     * Drills are not per pool, so the pool filter leaves them alone.
     */
    static Chart drills(List<DrillResult> newestFirst, Instant since) {
        Map<String, List<Charts.Mark>> byDrill = new TreeMap<>();
        List<DrillResult> inWindow = newestFirst.stream().filter(d -> d.finishedAt() != null && !d.finishedAt().isBefore(since)).toList();
        for (DrillResult d : inWindow.stream().sorted(Comparator.comparing(DrillResult::finishedAt)).toList()) {
            String outcome = d.passed() ? "passed" : "failed";
            byDrill.computeIfAbsent(d.drill() + " · " + d.mode(), k -> new ArrayList<>()).add(new Charts.Mark(d.passed(), d.drill() + " · "
                    + d.mode() + " · " + TICK.format(d.finishedAt()) + ": " + outcome + (d.incidentId() == null ? "" : " (incident "
                    + d.incidentId() + ")") + (d.problem() == null || d.problem().isBlank() ? "" : " — " + d.problem())));
        }
        if (byDrill.isEmpty()) return null;
        List<Charts.Strip> strips = new ArrayList<>();
        byDrill.forEach((drill, marks) -> strips.add(new Charts.Strip(drill, marks.subList(Math.max(0, marks.size() - RUNS_PER_DRILL),
                marks.size()))));
        return new Chart("drills", "Drill results", Charts.strips("Drill runs per drill and mode, oldest to newest", strips, "passed",
                "failed"), inWindow.size() + " run" + (inWindow.size() == 1 ? "" : "s") + " in this window (at most the last 30 days), the newest "
                + RUNS_PER_DRILL + " per drill; passed when every expected stage happened within its objective. A shadow drill delivers"
                + " the alert only and runs the incident dry");
    }

    /**
     * What the policy's repeat-offender rules count, as they count them: fatal XIDs per GPU in the fault
     * history within the XID window, and remediations (resets, repairs) per node within the remediation window.
     */
    List<Chart> repeatOffenders(Policy pol, Instant now) {
        Map<String, Long> resets = faults.fatalPerGpu(now.minus(pol.xidWindow()));
        Map<String, Long> remediations = history.since(now.minus(pol.remediationWindow())).stream()
                .filter(a -> a.kind() == ActionKind.RESET_GPU || a.kind() == ActionKind.REPAIR_NODE)
                .collect(Collectors.groupingBy(a -> a.kind().node(a.target()), Collectors.counting()));
        return List.of(
                new Chart("repeat-gpus", "Repeat-offender GPUs", Charts.bars("Fatal XIDs per GPU, last " + hours(pol.xidWindow()),
                        top(resets), "fatal XIDs"), "Fatal XIDs recorded per GPU (its fault history) in the last " + hours(pol.xidWindow())
                        + "; at " + pol.fatalXidsPerGpu() + " the policy stops resetting it (repeatOffenders.fatalXidsPerGpu)"),
                new Chart("repeat-nodes", "Repeat-offender nodes", Charts.bars("Remediations per node, last "
                        + hours(pol.remediationWindow()), top(remediations), "remediations"), "GPU resets and repairs per node in the last "
                        + hours(pol.remediationWindow()) + "; at " + pol.remediationsPerNode()
                        + " the node stays fenced (repeatOffenders.remediationsPerNode)"));
    }

    private static List<Charts.Bar> top(Map<String, Long> counts) {
        return counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(10).map(e -> new Charts.Bar(e.getKey(), e.getValue())).toList();
    }

    private static String hours(Duration d) {
        return d.toHours() % 24 == 0 && d.toHours() >= 48 ? d.toDays() + " days" : d.toHours() + " h";
    }

    /**
     * Recovery objectives as the report measured them: per objective, how many incidents met it and how many breached
     * it (pending and skipped checks are left out: they say nothing yet), and each pool's GPU-hours lost against its
     * weekly budget. The drills' results are {@link #drills}.
     */
    static List<Chart> objectives(Reliability.Report r) {
        Map<String, long[]> byObjective = new TreeMap<>();
        for (Reliability.IncidentObjectives incident : r.objectives()) {
            for (io.acceltriage.reliability.ObjectiveCheck c : incident.checks()) {
                long[] counts = byObjective.computeIfAbsent(c.objective(), k -> new long[2]);
                if (c.status() == io.acceltriage.reliability.ObjectiveCheck.Status.MET) counts[0]++;
                if (c.status() == io.acceltriage.reliability.ObjectiveCheck.Status.BREACHED) counts[1]++;
            }
        }
        List<Chart> out = new ArrayList<>();
        if (!byObjective.isEmpty()) {
            List<Charts.Bar> met = new ArrayList<>();
            List<Charts.Bar> breached = new ArrayList<>();
            byObjective.forEach((objective, counts) -> {
                met.add(new Charts.Bar(objective, counts[0]));
                breached.add(new Charts.Bar(objective, counts[1]));
            });
            out.add(new Chart("objectives-met", "Objectives met", Charts.bars("Incidents that met each objective", met, "incidents"),
                    "per objective of the policy in force: incidents that reached the stage within its bound"));
            out.add(new Chart("objectives-breached", "Objectives breached", Charts.bars("Incidents that breached each objective", breached,
                    "incidents"), "incidents that reached the stage late, or not at all once the bound had passed"));
        }
        if (!r.budgets().isEmpty()) {
            out.add(new Chart("budgets", "GPU-hours lost against the weekly budget", Charts.bars("GPU-hours lost in the last 7 days per pool",
                    r.budgets().stream().map(b -> new Charts.Bar(b.pool() + " (budget " + Math.round(b.gpuHoursPerWeek()) + ")",
                            Math.round(b.gpuHoursLost() * 1000) / 1000.0)).toList(), "GPU-h"),
                    "each pool's loss in the last 7 days (fenced + work lost + slowed); the label names its budget (objectives with gpuHoursPerWeek)"));
        }
        return out;
    }
}
