package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.Database;
import io.acceltriage.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells people about an incident: audits an escalation, writes the notice to the service log, and
 * queues it in the durable chat outbox for every chat channel that tells incidents, in the transaction
 * of what it reports when the caller has one. One replica sends each queued message (see
 * {@link OutboxSender}); the same notice queued twice for one moment of an incident is queued once.
 */
@ApplicationScoped
public class Escalations {

    private final Instance<Notifier> notifiers;
    private final List<Outbound> channels;
    private final ChatOutbox outbox;
    private final ChatDelivery delivery;
    private final Database database;
    private final AuditLog audit;

    Escalations(Instance<Notifier> notifiers, Instance<Outbound> handlers, ChatOutbox outbox, ChatDelivery delivery,
            Database database, AuditLog audit) {
        this.notifiers = notifiers;
        this.channels = handlers.stream().filter(h -> Outgoing.NOTICE.equals(h.kind())).toList();
        this.outbox = outbox;
        this.delivery = delivery;
        this.database = database;
        this.audit = audit;
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
            audit.append(tx, notice.incidentId(), AuditKind.ESCALATION, Actors.AGENT, p);
        }
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

    /** After the caller's transaction committed: this replica's sender looks at once. */
    public void queued() {
        delivery.wake();
    }
}
