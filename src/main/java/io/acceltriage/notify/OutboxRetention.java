package io.acceltriage.notify;

import io.acceltriage.action.Leadership;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps the chat outbox to what is still useful: messages delivered or given up longer ago than
 * {@code acceltriage.chat.outbox.retention} are deleted, by the leader only (one replica sweeps, the
 * others would find nothing), with one audited record of how many. What each message did stays in its
 * notification record; a pending message is never swept.
 */
@ApplicationScoped
public class OutboxRetention {

    private final ChatOutbox outbox;
    private final AuditLog audit;
    private final Leadership leadership;
    private final Duration retention;
    private final boolean enabled;

    OutboxRetention(ChatOutbox outbox, AuditLog audit, Leadership leadership,
            @ConfigProperty(name = "acceltriage.chat.outbox.retention", defaultValue = "7d") Duration retention,
            @ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("acceltriage.chat.outbox.retention must be longer than 0, not " + retention);
        }
        this.outbox = outbox;
        this.audit = audit;
        this.leadership = leadership;
        this.retention = retention;
        this.enabled = enabled;
    }

    @Scheduled(every = "${acceltriage.chat.outbox.sweep-every:1h}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void onSchedule() {
        if (enabled) sweep(Instant.now());
    }

    /** Sweeps what was done before {@code now} minus the retention, when this replica leads; returns how many went. */
    long sweep(Instant now) {
        if (!leadership.isLeader()) return 0;
        Instant before = now.minus(retention);
        return outbox.database().transaction(tx -> {
            long deleted = outbox.sweep(tx, before);
            if (deleted > 0) {
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("deleted", deleted);
                p.put("doneBefore", before.toString());
                p.put("retention", retention.toString());
                audit.append(tx, null, AuditKind.CHAT_OUTBOX_SWEPT, Actors.AGENT, p);
            }
            return deleted;
        });
    }
}
