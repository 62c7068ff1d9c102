package io.acceltriage.reliability;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.evidence.Facts;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.StoredAlert;
import io.acceltriage.policy.ActionKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** Works out an incident's {@link IncidentTiming} from its row, its alerts, its audit trail and its actions. No I/O. */
final class Timings {

    private Timings() {}

    /** An action that ran: being checked, checked, or reverted since. */
    private static final Set<ActionStatus> TOOK_EFFECT = Set.of(ActionStatus.VERIFYING, ActionStatus.SUCCEEDED, ActionStatus.UNDONE);

    static IncidentTiming of(Incident incident, List<StoredAlert> alerts, List<AuditRecord> trail, List<ActionRecord> actions,
            Instant now) {
        Instant faultAt = faultAt(alerts);
        Instant receivedAt = alerts.stream().map(StoredAlert::receivedAt).filter(Objects::nonNull).min(Comparator.naturalOrder())
                .orElse(incident.openedAt());
        Instant decidedAt = first(trail, AuditKind.VERDICT).or(() -> first(trail, AuditKind.DIAGNOSIS)).orElse(null);
        Instant mitigatedAt = mitigatedAt(alerts, trail);
        Instant verifiedAt = first(trail, AuditKind.VERIFICATION).orElse(null);
        Instant returnedAt = actions.stream().filter(a -> a.kind() == ActionKind.RETURN_NODE && !a.dryRun()
                && a.status() == ActionStatus.SUCCEEDED).map(ActionRecord::updatedAt).min(Comparator.naturalOrder()).orElse(null);
        StoredAssessment assessment = StoredAssessment.read(incident.assessmentJson());
        String pool = null;
        int fenced = 0;
        double gpuHours = 0;
        Set<String> counted = new HashSet<>();
        for (ActionRecord a : actions) {
            boolean fences = a.kind() == ActionKind.CORDON_NODE || a.kind() == ActionKind.DRAIN_NODE;
            boolean tookEffect = !a.dryRun() && TOOK_EFFECT.contains(a.status());
            if (!fences || !tookEffect || !counted.add(a.target())) continue;
            Capacity c = capacity(assessment, a.target());
            if (c == null) continue;
            pool = pool == null ? c.pool() : pool;
            fenced += c.gpus();
            // Fenced from the action (planned and applied within seconds) until it was undone (its last
            // change), the incident resolved, or now.
            Instant until = a.status() == ActionStatus.UNDONE ? a.updatedAt() : incident.resolvedAt() != null ? incident.resolvedAt() : now;
            gpuHours += c.gpus() * Math.max(0, Duration.between(a.createdAt(), until).toSeconds()) / 3600.0;
        }
        if (pool == null && assessment != null && incident.node() != null) {
            Capacity c = capacity(assessment, incident.node());
            pool = c == null ? null : c.pool();
        }
        GpuHoursLost lost = new GpuHoursLost(GpuHoursLost.round(gpuHours), workLost(assessment, actions), 0, trainingGpus(assessment));
        ServiceImpact impact = impact(trail);
        return new IncidentTiming(incident.id(), incident.family(), pool, incident.node(), faultAt, receivedAt, decidedAt, mitigatedAt,
                verifiedAt, returnedAt, incident.resolvedAt(), fenced, lost.total(), impact, lost.withImpact(impact));
    }

    /**
     * The work restarts threw away: each gang's GPU-hours since its last checkpoint (as triage read them), when a
     * restart of that gang took effect without waiting for its next checkpoint. A gang is counted once.
     */
    static double workLost(StoredAssessment assessment, List<ActionRecord> actions) {
        if (assessment == null) return 0;
        double hours = 0;
        for (io.acceltriage.agent.WorkLost w : assessment.workLost()) {
            if (w.atCheckpoint()) continue;
            boolean restarted = actions.stream().anyMatch(a -> a.kind() == ActionKind.RESTART_GROUP && w.workload().equals(a.target())
                    && !a.dryRun() && TOOK_EFFECT.contains(a.status()));
            if (restarted) hours += w.gpuHours();
        }
        return GpuHoursLost.round(hours);
    }

    /** The GPUs of the incident's one training gang; 0 with none or several (a slowdown could not be attributed). */
    static int trainingGpus(StoredAssessment assessment) {
        if (assessment == null) return 0;
        List<io.acceltriage.agent.WorkLost> gangs = assessment.workLost();
        return gangs.size() == 1 ? gangs.get(0).gpus() : 0;
    }

    /** When the fault began: the earliest alert's startsAt. */
    static Instant faultAt(List<StoredAlert> alerts) {
        return alerts.stream().map(a -> a.alert().startsAt()).filter(Objects::nonNull).min(Comparator.naturalOrder()).orElse(null);
    }

    /** The service impact the watch stored, typed; null when none is stored yet. */
    static ServiceImpact impact(List<AuditRecord> trail) {
        return trail.stream().filter(r -> r.kind() == AuditKind.IMPACT_MEASURED).reduce((a, b) -> b)
                .map(r -> io.acceltriage.store.Json.MAPPER.convertValue(r.payload(), ServiceImpact.class)).orElse(null);
    }

    /**
     * When an action first finished: one that changed something; or, in a shadow drill's incident (forced to dry
     * run, so nothing changes by design), the first that would have. A dry run under a policy-wide {@code dryRun: true}
     * mitigated nothing, so a real incident does not count it.
     */
    static Instant mitigatedAt(List<StoredAlert> alerts, List<AuditRecord> trail) {
        boolean shadow = io.acceltriage.policy.ForcedDryRun.of(alerts.stream().map(a -> a.alert().labels()).toList()).isPresent();
        return trail.stream().filter(r -> r.kind() == AuditKind.ACTION_FINISHED)
                .filter(r -> shadow || r.payload() == null || !r.payload().path("dryRun").asBoolean(false))
                .map(AuditRecord::at).min(Comparator.naturalOrder()).orElse(null);
    }

    private static Optional<Instant> first(List<AuditRecord> trail, AuditKind kind) {
        return trail.stream().filter(r -> r.kind() == kind).map(AuditRecord::at).min(Comparator.naturalOrder());
    }

    private record Capacity(String pool, int gpus) {}

    /** The node's accelerators as its incident's evidence read them (the capacity fact). */
    private static Capacity capacity(StoredAssessment a, String node) {
        if (a == null) return null;
        for (StoredAssessment.Item item : a.evidence().items()) {
            if (item.typedFact().orElse(null) instanceof Facts.AcceleratorCapacity c && node.equals(c.node())) {
                return new Capacity(c.pool(), c.capacity());
            }
        }
        return null;
    }
}
