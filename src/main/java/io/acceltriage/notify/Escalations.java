package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import io.acceltriage.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import io.acceltriage.agent.IncidentRunbooks;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.incident.IncidentStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Tells people about an incident: audits an escalation, writes the notice to the service log, and
 * queues it in the durable chat outbox for every chat channel that tells incidents, in the transaction
 * of what it reports when the caller has one. One replica sends each queued message (see
 * {@link OutboxSender}); the same notice queued twice for one moment of an incident is queued once.
 * An escalation's audit record carries the incident's runbook (its id, title, what a person must do
 * next and the vendor's guide), so the record of what a person was asked to do is complete without
 * the chat message.
 */
@ApplicationScoped
public class Escalations {

    private final Instance<Notifier> notifiers;
    private final List<Outbound> channels;
    private final ChatOutbox outbox;
    private final ChatDelivery delivery;
    private final Database database;
    private final AuditLog audit;
    private final IncidentStore incidents;
    private final Runbooks runbooks;

    Escalations(Instance<Notifier> notifiers, Instance<Outbound> handlers, ChatOutbox outbox, ChatDelivery delivery,
            Database database, AuditLog audit, IncidentStore incidents, Runbooks runbooks) {
        this.notifiers = notifiers;
        this.channels = handlers.stream().filter(h -> Outgoing.NOTICE.equals(h.kind())).toList();
        this.outbox = outbox;
        this.delivery = delivery;
        this.database = database;
        this.audit = audit;
        this.incidents = incidents;
        this.runbooks = runbooks;
    }

    /** In a transaction of its own. */
    public void tell(Notice notice) {
        database.transaction(tx -> {
            tell(tx, notice);
            return null;
        });
        delivery.wake();
    }

    /** In the caller's transaction: the notice is queued if and only if what it reports commits. */
    public void tell(Tx tx, Notice notice) {
        if (!notice.needsAPerson().isEmpty()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("reasons", notice.needsAPerson());
            p.put("summary", notice.summary());
            runbookOf(notice.incidentId()).ifPresent(r -> p.put("runbook", r));
            audit.append(tx, notice.incidentId(), AuditKind.ESCALATION, Actors.AGENT, p);
        }
        deliver(tx, notice);
    }

    /**
     * The same news told again with a better summary (the model's, written after the decision): queued like
     * any notice, so each channel updates its message where it can (Slack edits the incident's message in
     * place; a channel that cannot edit keeps what it said). No second escalation record: nobody was
     * escalated to again.
     */
    public void revise(Notice notice) {
        database.transaction(tx -> {
            deliver(tx, notice);
            return null;
        });
        delivery.wake();
    }

    private void deliver(Tx tx, Notice notice) {
        for (Notifier n : notifiers) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("channel", n.channel());
            p.put("event", notice.event());
            try {
                n.send(notice);
                p.put("delivered", true);
                p.put("detail", "logged");
            } catch (RuntimeException e) {
                p.put("delivered", false);
                p.put("detail", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            audit.append(tx, notice.incidentId(), AuditKind.NOTIFICATION, Actors.AGENT, p);
        }
        for (Outbound channel : channels) {
            outbox.enqueue(tx, Outgoing.Draft.notice(channel.channel(), notice));
        }
    }

    /** What the escalation record keeps of the runbook: enough to act on, with the guide to read. */
    record RunbookRef(String id, String title, List<String> next, String guide) {}

    private Optional<RunbookRef> runbookOf(String incidentId) {
        if (incidentId == null) return Optional.empty();
        return incidents.find(incidentId).flatMap(i -> IncidentRunbooks.of(runbooks, i.assessmentJson()))
                .map(r -> new RunbookRef(r.id(), r.title(), r.next(), r.links().isEmpty() ? null : r.links().get(0).url()));
    }

    /** After the caller's transaction committed: this replica's sender looks at once. */
    public void queued() {
        delivery.wake();
    }
}
