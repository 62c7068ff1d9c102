package io.acceltriage.reliability;

import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicySource;
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
 * resolve, and the GPU-hours lost to fencing; and every incident measured against the policy's
 * recovery objectives.
 */
@ApplicationScoped
public class Reliability {

    /** Incidents read for one report: a week of a busy fleet; the report says when it was cut. */
    static final int MAX_INCIDENTS = 500;

    public record Stat(long count, Double p50Seconds, Double p90Seconds, Double maxSeconds) {}

    public record FamilyReport(String family, int incidents, Stat timeToDecide, Stat timeToMitigate, Stat timeToResolve,
            int gpusFenced, double gpuHoursLost, GpuHoursLost lost) {}

    public record Report(Instant since, String pool, int incidents, boolean truncated, List<FamilyReport> byFamily,
            List<IncidentTiming> timings, List<IncidentObjectives> objectives, List<Budget> budgets) {}

    /** An incident measured against every objective of the policy in force that applies to it. */
    public record IncidentObjectives(String incidentId, String family, String pool, List<ObjectiveCheck> checks) {}

    /** A pool's GPU-hours lost in the last 7 days against a loss budget of the policy. */
    /** {@code gpuHoursLost}: all kinds of loss ({@code lost} says which), each counted once, against {@code gpuHoursPerWeek}. */
    public record Budget(String objective, String pool, double gpuHoursPerWeek, double gpuHoursLost, ObjectiveCheck.Status status,
            GpuHoursLost lost) {}

    /** One incident's clock and its checks against the stage objectives. */
    public record IncidentReport(IncidentTiming timing, List<ObjectiveCheck> checks) {}

    /** An incident with what it was measured from, for the breach watch. */
    record Measured(Incident incident, IncidentTiming timing, List<AuditRecord> trail, List<ObjectiveCheck> checks) {}

    private final IncidentStore incidents;
    private final AlertInbox alerts;
    private final AuditReader audit;
    private final Executor actions;
    private final PolicySource policy;
    private final ServiceImpacts impacts;
    private final Clock clock = Clock.systemUTC();

    Reliability(IncidentStore incidents, AlertInbox alerts, AuditReader audit, Executor actions, PolicySource policy, ServiceImpacts impacts) {
        this.impacts = impacts;
        this.incidents = incidents;
        this.alerts = alerts;
        this.audit = audit;
        this.actions = actions;
        this.policy = policy;
    }

    public Report since(Instant since, String pool) {
        Instant now = clock.instant();
        List<Policy.Objective> objectives = policy.current().objectivesOrDefault();
        boolean budgets = objectives.stream().anyMatch(Policy.Objective::isLossBudget);
        // A GPU-hours budget counts the week before each incident, so read that week too when there is one.
        List<Measured> all = measure(budgets ? since.minus(Objectives.BUDGET_WINDOW) : since, objectives, now);
        List<IncidentTiming> timings = new ArrayList<>();
        List<IncidentObjectives> checks = new ArrayList<>();
        for (Measured m : all) {
            if (m.incident().openedAt().isBefore(since)) continue;
            IncidentTiming t = m.timing();
            if (pool != null && !pool.equals(t.pool())) continue;
            timings.add(t);
            checks.add(new IncidentObjectives(t.incidentId(), t.family(), t.pool(), m.checks()));
        }
        Map<String, List<IncidentTiming>> byFamily = new LinkedHashMap<>();
        for (IncidentTiming t : timings) byFamily.computeIfAbsent(t.family() == null ? "unknown" : t.family(), k -> new ArrayList<>()).add(t);
        List<FamilyReport> families = new ArrayList<>();
        byFamily.forEach((family, ts) -> families.add(new FamilyReport(family, ts.size(), stat(ts, IncidentTiming::toDecide),
                stat(ts, IncidentTiming::toMitigate), stat(ts, IncidentTiming::toResolve), ts.stream().mapToInt(IncidentTiming::gpusFenced).sum(),
                Math.round(ts.stream().mapToDouble(IncidentTiming::gpuHoursLost).sum() * 1000) / 1000.0,
                ts.stream().map(IncidentTiming::lost).reduce(GpuHoursLost.NONE, GpuHoursLost::plus))));
        return new Report(since, pool, timings.size(), all.size() == MAX_INCIDENTS, families, timings, checks,
                budgets(objectives, all.stream().map(Measured::timing).toList(), pool, now));
    }

    /** Every incident opened since {@code since} (newest first, at most {@link #MAX_INCIDENTS}), timed and measured. */
    List<Measured> measure(Instant since, List<Policy.Objective> objectives, Instant now) {
        return measure(since, objectives, now, Map.of());
    }

    /**
     * The same, reusing the timings in {@code settled} of resolved incidents instead of reading their
     * records again (a resolved incident's timing no longer changes); those come back without a trail.
     */
    List<Measured> measure(Instant since, List<Policy.Objective> objectives, Instant now, Map<String, IncidentTiming> settled) {
        List<Incident> opened = incidents.list(new IncidentFilter(null, null, null, null, since, null, MAX_INCIDENTS));
        List<Measured> measured = new ArrayList<>();
        List<IncidentTiming> timings = new ArrayList<>();
        for (Incident i : opened) {
            IncidentTiming known = i.resolvedAt() == null ? null : settled.get(i.id());
            if (known != null) {
                timings.add(known);
                measured.add(new Measured(i, known, null, null));
                continue;
            }
            List<AuditRecord> trail = audit.find(AuditQuery.forIncident(i.id()));
            IncidentTiming t = withImpact(Timings.of(i, alerts.ofIncident(i.id()), trail, actions.ofIncident(i.id()), now), now);
            timings.add(t);
            measured.add(new Measured(i, t, trail, null));
        }
        List<Measured> out = new ArrayList<>();
        for (Measured m : measured) {
            out.add(new Measured(m.incident(), m.timing(), m.trail(), Objectives.of(objectives, m.timing(), timings, now)));
        }
        return out;
    }

    /**
     * One incident's timing and its stage objectives now (GPU-hours budgets need the pool's week:
     * they are in {@link #since}).
     */
    public java.util.Optional<IncidentReport> incident(String id) {
        return incidents.find(id).map(i -> {
            Instant now = clock.instant();
            IncidentTiming t = withImpact(Timings.of(i, alerts.ofIncident(i.id()), audit.find(AuditQuery.forIncident(i.id())),
                    actions.ofIncident(i.id()), now), now);
            List<Policy.Objective> stages = objectives().stream().filter(o -> !o.isLossBudget()).toList();
            return new IncidentReport(t, Objectives.of(stages, t, List.of(t), now));
        });
    }

    /** The stored impact, else pending or why it cannot be measured: never a figure that was not read. */
    private IncidentTiming withImpact(IncidentTiming t, Instant now) {
        return t.impact() != null ? t : t.withImpact(impacts.unmeasured(t.faultAt(), now));
    }

    List<Policy.Objective> objectives() {
        return policy.current().objectivesOrDefault();
    }

    /** Each pool's loss in the last 7 days against each budget that speaks of it. */
    static List<Budget> budgets(List<Policy.Objective> objectives, List<IncidentTiming> timings, String onlyPool, Instant now) {
        Instant from = now.minus(Objectives.BUDGET_WINDOW);
        Map<String, GpuHoursLost> lost = new java.util.TreeMap<>();
        for (IncidentTiming t : timings) {
            if (t.pool() != null && t.receivedAt().isAfter(from)) lost.merge(t.pool(), t.lost(), GpuHoursLost::plus);
        }
        List<Budget> out = new ArrayList<>();
        for (Policy.Objective o : objectives) {
            if (!o.isLossBudget()) continue;
            List<String> pools = o.pool() != null ? List.of(o.pool()) : List.copyOf(lost.keySet());
            for (String p : pools) {
                if (onlyPool != null && !onlyPool.equals(p)) continue;
                GpuHoursLost kinds = lost.getOrDefault(p, GpuHoursLost.NONE);
                double l = kinds.total();
                out.add(new Budget(o.name(), p, o.gpuHoursPerWeek(), l,
                        l > o.gpuHoursPerWeek() ? ObjectiveCheck.Status.BREACHED : ObjectiveCheck.Status.MET, kinds));
            }
        }
        return out;
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
