package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import io.acceltriage.agent.IncidentRunbooks;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.incident.IncidentStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;

/**
 * Sends a notice to every configured channel and audits each delivery. An escalation's audit record
 * carries the incident's runbook (its id, title, what a person must do next and the vendor's guide),
 * so the record of what a person was asked to do is complete without the chat message.
 */
@ApplicationScoped
public class Escalations {

    private final Instance<Notifier> notifiers;
    private final AuditLog audit;
    private final IncidentStore incidents;
    private final Runbooks runbooks;

    Escalations(Instance<Notifier> notifiers, AuditLog audit, IncidentStore incidents, Runbooks runbooks) {
        this.notifiers = notifiers;
        this.audit = audit;
        this.incidents = incidents;
        this.runbooks = runbooks;
    }

    public void tell(Notice notice) {
        if (!notice.needsAPerson().isEmpty()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("reasons", notice.needsAPerson());
            p.put("summary", notice.summary());
            runbookOf(notice.incidentId()).ifPresent(r -> p.put("runbook", r));
            audit.append(notice.incidentId(), AuditKind.ESCALATION, Actors.AGENT, p);
        }
        deliver(notice);
    }

    /**
     * The same news told again with a better summary (the model's, written after the decision): each
     * channel updates its message where it can (Slack edits it in place; a channel that cannot edit
     * keeps what it said). No second escalation record: nobody was escalated to again.
     */
    public void revise(Notice notice) {
        deliver(notice);
    }

    private void deliver(Notice notice) {
        for (Notifier n : notifiers) {
            Notifier.Delivery d;
            try {
                d = n.send(notice);
            } catch (RuntimeException e) {
                d = new Notifier.Delivery(false, true, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("channel", n.channel());
            p.put("event", notice.event());
            p.put("delivered", d.delivered());
            p.put("detail", d.detail());
            audit.append(notice.incidentId(), AuditKind.NOTIFICATION, Actors.AGENT, p);
        }
    }

    /** What the escalation record keeps of the runbook: enough to act on, with the guide to read. */
    record RunbookRef(String id, String title, List<String> next, String guide) {}

    private Optional<RunbookRef> runbookOf(String incidentId) {
        if (incidentId == null) return Optional.empty();
        return incidents.find(incidentId).flatMap(i -> IncidentRunbooks.of(runbooks, i.assessmentJson()))
                .map(r -> new RunbookRef(r.id(), r.title(), r.next(), r.links().isEmpty() ? null : r.links().get(0).url()));
    }
}
