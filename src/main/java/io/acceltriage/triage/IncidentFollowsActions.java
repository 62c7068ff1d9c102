package io.acceltriage.triage;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * After a person decides (approve, reject, undo), the incident's state says where its actions now
 * stand, instead of staying "awaiting approval" after the action ran or was rejected. Triage set the
 * state from the verdicts; this sets it again from the actions, with the same reading of them.
 */
@ApplicationScoped
public class IncidentFollowsActions {

    /** What a person still has to do something about: it failed, did not take, was refused, waited too long, or was reverted. */
    private static final Set<ActionStatus> NEEDS_A_PERSON = Set.of(ActionStatus.FAILED, ActionStatus.UNVERIFIED, ActionStatus.REJECTED,
            ActionStatus.EXPIRED, ActionStatus.SKIPPED, ActionStatus.UNDONE);

    private final IncidentStore incidents;
    private final Executor executor;
    private final Database database;
    private final AuditLog audit;

    IncidentFollowsActions(IncidentStore incidents, Executor executor, Database database, AuditLog audit) {
        this.incidents = incidents;
        this.executor = executor;
        this.database = database;
        this.audit = audit;
    }

    /** Sets the incident's state from its actions; a resolved incident, or one still triaging, is left as it is. */
    public void follow(String incidentId) {
        if (incidentId == null) return;
        Optional<Incident> found = incidents.find(incidentId);
        if (found.isEmpty() || !found.get().state().open() || found.get().state() == IncidentState.TRIAGING) return;
        Incident i = found.get();
        IncidentState next = stateOf(executor.ofIncident(incidentId), i);
        if (next == i.state()) return;
        database.transaction(tx -> {
            incidents.setState(tx, incidentId, next);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("from", i.state().name().toLowerCase());
            p.put("to", next.name().toLowerCase());
            p.put("reason", "a person decided on its actions");
            audit.append(tx, incidentId, AuditKind.INCIDENT_STATE, io.acceltriage.audit.Actors.AGENT, p);
            return null;
        });
    }

    static IncidentState stateOf(List<ActionRecord> actions, Incident incident) {
        if (actions.stream().anyMatch(a -> a.status() == ActionStatus.AWAITING_APPROVAL)) return IncidentState.AWAITING_APPROVAL;
        // the leader runs it yet, or checks what it did
        if (actions.stream().anyMatch(a -> a.status() == ActionStatus.PLANNED || a.status() == ActionStatus.VERIFYING)) return incident.state();
        if (actions.stream().anyMatch(a -> NEEDS_A_PERSON.contains(a.status()))) return IncidentState.ESCALATED;
        // Everything ran; a person is still needed when triage said so (a device to replace, say).
        boolean escalatedAtTriage = incident.assessmentJson() != null
                && !StoredAssessment.read(incident.assessmentJson()).escalationReasons().isEmpty();
        return escalatedAtTriage ? IncidentState.ESCALATED : IncidentState.MITIGATED;
    }
}
