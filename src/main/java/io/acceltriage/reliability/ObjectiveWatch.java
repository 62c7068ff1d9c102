package io.acceltriage.reliability;

import io.acceltriage.action.Executor;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.metrics.ServiceMetrics;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Tells people when an incident misses a recovery objective: the leader measures the last week's
 * incidents every minute and, for each breach not yet recorded, audits it (the record is what makes it
 * once per incident and objective, across restarts), counts it and sends it through notify like an
 * escalation. Incremental: a resolved incident whose checks are final and whose breaches are recorded
 * is remembered with its timing (the pools' budgets still count it) and its records are not read
 * again, until the policy's objectives change. Off for the command-line tools.
 */
@ApplicationScoped
class ObjectiveWatch {

    private static final Logger LOG = Logger.getLogger(ObjectiveWatch.class);

    private final boolean enabled;
    private final Reliability reliability;
    private final Executor executor;
    private final AuditLog audit;
    private final Escalations escalations;
    private final ServiceMetrics metrics;
    /** Resolved incidents judged for good, with their timing; valid for the objectives they were judged under. */
    private final Map<String, IncidentTiming> settled = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile List<io.acceltriage.policy.Policy.Objective> judgedUnder = List.of();
    /** How many incidents' records the last check read (the rest were settled). */
    private volatile int lastRead;

    ObjectiveWatch(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            Reliability reliability, Executor executor, AuditLog audit, Escalations escalations, ServiceMetrics metrics) {
        this.enabled = enabled;
        this.reliability = reliability;
        this.executor = executor;
        this.audit = audit;
        this.escalations = escalations;
        this.metrics = metrics;
    }

    @Scheduled(every = "${acceltriage.objectives.check-every:60s}", delayed = "10s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!enabled || !executor.leads()) return;
        try {
            check(Instant.now());
        } catch (RuntimeException e) {
            LOG.warnf("objective watch: %s; checked again at the next tick", e.getMessage());
        }
    }

    /** Records and tells every breach not recorded before; returns how many were new. */
    int check(Instant now) {
        int told = 0;
        List<io.acceltriage.policy.Policy.Objective> objectives = reliability.objectives();
        if (!objectives.equals(judgedUnder)) {
            settled.clear(); // other objectives: every incident is judged afresh
            judgedUnder = objectives;
        }
        List<Reliability.Measured> measured = reliability.measure(now.minus(Objectives.BUDGET_WINDOW), objectives, now, settled);
        settled.keySet().retainAll(measured.stream().map(m -> m.incident().id()).toList());
        int read = 0;
        for (Reliability.Measured m : measured) {
            if (m.trail() == null) continue; // settled: judged before, nothing can change
            read++;
            for (ObjectiveCheck c : m.checks()) {
                if (!c.breached() || recorded(m.trail(), c.objective())) continue;
                IncidentTiming t = m.timing();
                String what = describe(c, t);
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("objective", c.objective());
                p.put("stage", c.stage());
                p.put("withinSeconds", c.withinSeconds());
                p.put("seconds", c.seconds());
                p.put("gpuHoursPerWeek", c.gpuHoursPerWeek());
                p.put("gpuHoursLost", c.gpuHoursLost());
                p.put("pool", t.pool());
                p.put("summary", what);
                audit.append(t.incidentId(), AuditKind.OBJECTIVE_BREACHED, Actors.AGENT, p);
                metrics.objectiveBreached(c.objective(), t.family(), t.pool());
                escalations.tell(new Notice(t.incidentId(), "objective_breached", m.incident().subject().key(),
                        t.family() == null ? "none" : t.family(), m.incident().confidence() == null ? 0 : m.incident().confidence(),
                        m.incident().summary() == null ? what : m.incident().summary(), List.of(what + "; " + nextStep(c)), null));
                told++;
            }
            boolean fin = m.incident().resolvedAt() != null && m.checks().stream().noneMatch(c -> c.status() == ObjectiveCheck.Status.PENDING);
            if (fin) settled.put(m.incident().id(), m.timing());
        }
        lastRead = read;
        return told;
    }

    /** How many incidents' records the last check read. */
    int lastRead() {
        return lastRead;
    }

    boolean remembers(String incidentId) {
        return settled.containsKey(incidentId);
    }

    private static boolean recorded(List<AuditRecord> trail, String objective) {
        return trail.stream().anyMatch(r -> r.kind() == AuditKind.OBJECTIVE_BREACHED && objective.equals(r.payload().path("objective").asText()));
    }

    static String describe(ObjectiveCheck c, IncidentTiming t) {
        if (c.stage() == null) {
            return String.format(Locale.ROOT, "objective %s missed: pool %s lost %.1f GPU-hours in 7 days, over its budget of %.1f",
                    c.objective(), t.pool(), c.gpuHoursLost(), c.gpuHoursPerWeek());
        }
        String bound = human(c.withinSeconds());
        boolean reached = switch (c.stage()) {
            case "detect" -> t.receivedAt() != null;
            case "decide" -> t.decidedAt() != null;
            case "mitigate" -> t.mitigatedAt() != null;
            case "verify" -> t.verifiedAt() != null;
            case "return-to-service" -> t.returnedAt() != null;
            default -> t.resolvedAt() != null;
        };
        return reached
                ? "objective " + c.objective() + " missed: " + c.stage() + " within " + bound + ", took " + human(c.seconds())
                : "objective " + c.objective() + " missed: not at " + c.stage() + " after " + human(c.seconds()) + " (objective " + bound + ")";
    }

    private static String nextStep(ObjectiveCheck c) {
        return c.stage() == null
                ? "look for repeat offenders and slow repairs in the pool (GET /api/v1/reliability?pool=…)"
                : "see what held up the " + c.stage() + " stage in the incident's audit trail (approvals waiting, timeouts)";
    }

    static String human(Double seconds) {
        if (seconds == null) return "?";
        Duration d = Duration.ofMillis(Math.round(seconds * 1000));
        if (d.toHours() > 0) return d.toHours() + "h " + d.toMinutesPart() + "m";
        if (d.toMinutes() > 0) return d.toMinutes() + "m " + d.toSecondsPart() + "s";
        return d.toSecondsPart() + "s";
    }
}
