package io.acceltriage.reliability;

import io.acceltriage.policy.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Measures incidents against the policy's recovery objectives. No I/O. */
final class Objectives {

    static final Duration BUDGET_WINDOW = Duration.ofDays(7);

    private Objectives() {}

    /** Whether the objective speaks of this incident at all (its family and pool, when it names them). */
    static boolean applies(Policy.Objective o, IncidentTiming t) {
        if (o.family() != null && !o.family().equals(t.family())) return false;
        if (o.isLossBudget()) return t.pool() != null && (o.pool() == null || o.pool().equals(t.pool()));
        return o.pool() == null || o.pool().equals(t.pool());
    }

    /**
     * The checks of every objective that applies to {@code t}. {@code others} holds the timings of the
     * incidents of the week before (for GPU-hours budgets); {@code t} itself may be among them.
     */
    static List<ObjectiveCheck> of(List<Policy.Objective> objectives, IncidentTiming t, List<IncidentTiming> others, Instant now) {
        List<ObjectiveCheck> checks = new ArrayList<>();
        for (Policy.Objective o : objectives) {
            if (!applies(o, t)) continue;
            checks.add(o.isLossBudget() ? budget(o, t, others) : stage(o, t, now));
        }
        return checks;
    }

    static ObjectiveCheck stage(Policy.Objective o, IncidentTiming t, Instant now) {
        Duration bound = o.bound();
        Instant start = "detect".equals(o.stage()) ? t.faultAt() : t.receivedAt();
        Instant reached = switch (o.stage()) {
            case "detect" -> t.receivedAt();
            case "decide" -> t.decidedAt();
            case "mitigate" -> t.mitigatedAt();
            case "verify" -> t.verifiedAt();
            case "return-to-service" -> t.returnedAt();
            case "resolve" -> t.resolvedAt();
            default -> throw new IllegalArgumentException("unknown stage " + o.stage()); // the validator refuses it first
        };
        // A node is only returned to service when the incident took GPUs out of it.
        boolean needed = !"return-to-service".equals(o.stage()) || t.gpusFenced() > 0;
        if (start == null || !needed) return check(o, ObjectiveCheck.Status.SKIPPED, null);
        if (reached != null) {
            Duration took = nonNegative(Duration.between(start, reached));
            return check(o, took.compareTo(bound) <= 0 ? ObjectiveCheck.Status.MET : ObjectiveCheck.Status.BREACHED, took);
        }
        Duration elapsed = nonNegative(Duration.between(start, t.resolvedAt() != null ? t.resolvedAt() : now));
        if (elapsed.compareTo(bound) > 0) return check(o, ObjectiveCheck.Status.BREACHED, elapsed);
        return check(o, t.resolvedAt() != null ? ObjectiveCheck.Status.SKIPPED : ObjectiveCheck.Status.PENDING, elapsed);
    }

    /** The pool's GPU-hours lost by incidents received in the 7 days up to this one, this one included. */
    static ObjectiveCheck budget(Policy.Objective o, IncidentTiming t, List<IncidentTiming> others) {
        Instant to = t.receivedAt();
        Instant from = to.minus(BUDGET_WINDOW);
        double lost = t.gpuHoursLost();
        for (IncidentTiming other : others) {
            if (other.incidentId().equals(t.incidentId()) || !Objects.equals(other.pool(), t.pool())) continue;
            if (other.receivedAt().isAfter(from) && !other.receivedAt().isAfter(to)) lost += other.gpuHoursLost();
        }
        lost = Math.round(lost * 1000) / 1000.0;
        ObjectiveCheck.Status status = t.gpuHoursLost() > 0 && lost > o.gpuHoursPerWeek() ? ObjectiveCheck.Status.BREACHED
                : t.resolvedAt() == null && t.gpusFenced() > 0 ? ObjectiveCheck.Status.PENDING : ObjectiveCheck.Status.MET;
        return new ObjectiveCheck(o.name(), null, null, o.gpuHoursPerWeek(), status, null, lost);
    }

    private static ObjectiveCheck check(Policy.Objective o, ObjectiveCheck.Status status, Duration seconds) {
        return new ObjectiveCheck(o.name(), o.stage(), o.bound().toMillis() / 1000.0, null, status,
                seconds == null ? null : seconds.toMillis() / 1000.0, null);
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }
}
