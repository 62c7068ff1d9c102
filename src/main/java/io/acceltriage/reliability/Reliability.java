package io.acceltriage.reliability;

import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What failures cost and how fast they were handled: every incident's timing since a moment, and per
 * failure family the count, the median, 90th percentile and worst time to decide, mitigate and
 * resolve, and the GPU-hours lost to fencing.
 */
@ApplicationScoped
public class Reliability {

    /** Incidents read for one report: a week of a busy fleet; the report says when it was cut. */
    static final int MAX_INCIDENTS = 500;

    public record Stat(long count, Double p50Seconds, Double p90Seconds, Double maxSeconds) {}

    public record FamilyReport(String family, int incidents, Stat timeToDecide, Stat timeToMitigate, Stat timeToResolve,
            int gpusFenced, double gpuHoursLost) {}

    public record Report(Instant since, String pool, int incidents, boolean truncated, List<FamilyReport> byFamily,
            List<IncidentTiming> timings) {}

    private final IncidentStore incidents;
    private final AlertInbox alerts;
    private final AuditReader audit;
    private final Executor actions;
    private final Clock clock = Clock.systemUTC();

    Reliability(IncidentStore incidents, AlertInbox alerts, AuditReader audit, Executor actions) {
        this.incidents = incidents;
        this.alerts = alerts;
        this.audit = audit;
        this.actions = actions;
    }

    public Report since(Instant since, String pool) {
        Instant now = clock.instant();
        List<Incident> opened = incidents.list(new IncidentFilter(null, null, null, null, since, null, MAX_INCIDENTS));
        List<IncidentTiming> timings = new ArrayList<>();
        for (Incident i : opened) {
            IncidentTiming t = Timings.of(i, alerts.ofIncident(i.id()), audit.find(AuditQuery.forIncident(i.id())),
                    actions.ofIncident(i.id()), now);
            if (pool == null || pool.equals(t.pool())) timings.add(t);
        }
        Map<String, List<IncidentTiming>> byFamily = new LinkedHashMap<>();
        for (IncidentTiming t : timings) byFamily.computeIfAbsent(t.family() == null ? "unknown" : t.family(), k -> new ArrayList<>()).add(t);
        List<FamilyReport> families = new ArrayList<>();
        byFamily.forEach((family, ts) -> families.add(new FamilyReport(family, ts.size(), stat(ts, IncidentTiming::toDecide),
                stat(ts, IncidentTiming::toMitigate), stat(ts, IncidentTiming::toResolve), ts.stream().mapToInt(IncidentTiming::gpusFenced).sum(),
                Math.round(ts.stream().mapToDouble(IncidentTiming::gpuHoursLost).sum() * 1000) / 1000.0)));
        return new Report(since, pool, timings.size(), opened.size() == MAX_INCIDENTS, families, timings);
    }

    /** Nearest-rank percentiles of the incidents where that stage happened. */
    static Stat stat(List<IncidentTiming> timings, Function<IncidentTiming, Duration> stage) {
        List<Double> s = timings.stream().map(stage).filter(Objects::nonNull).map(d -> d.toMillis() / 1000.0).sorted().toList();
        if (s.isEmpty()) return new Stat(0, null, null, null);
        return new Stat(s.size(), rank(s, 0.5), rank(s, 0.9), s.get(s.size() - 1));
    }

    private static double rank(List<Double> sorted, double q) {
        return sorted.get(Math.max(0, (int) Math.ceil(q * sorted.size()) - 1));
    }
}
