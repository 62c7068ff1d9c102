package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.util.LinkedHashMap;
import java.util.Map;

/** Sends a notice to every configured channel and audits each delivery. */
@ApplicationScoped
public class Escalations {

    private final Instance<Notifier> notifiers;
    private final AuditLog audit;

    Escalations(Instance<Notifier> notifiers, AuditLog audit) {
        this.notifiers = notifiers;
        this.audit = audit;
    }

    public void tell(Notice notice) {
        if (!notice.needsAPerson().isEmpty()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("reasons", notice.needsAPerson());
            p.put("summary", notice.summary());
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
}
