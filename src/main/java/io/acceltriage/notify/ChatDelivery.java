package io.acceltriage.notify;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.metrics.ServiceMetrics;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This replica's sender of the chat outbox, started with the service (not for the command-line tools,
 * which send nothing), and the outbox's backlog gauge.
 */
@ApplicationScoped
public class ChatDelivery {

    private final ChatOutbox outbox;
    private final List<Outbound> handlers;
    private final AuditLog audit;
    private final boolean enabled;
    private final String claimer;
    private final Duration claim;
    private final Duration idleTick;
    private volatile OutboxSender sender;

    ChatDelivery(ChatOutbox outbox, Instance<Outbound> handlers, AuditLog audit, ServiceMetrics metrics,
            @ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            @ConfigProperty(name = "acceltriage.replica.id") Optional<String> replica,
            @ConfigProperty(name = "acceltriage.chat.outbox.claim", defaultValue = "30s") Duration claim,
            @ConfigProperty(name = "acceltriage.chat.outbox.idle-tick", defaultValue = "30s") Duration idleTick) {
        if (claim.compareTo(Duration.ofSeconds(3)) < 0) {
            // Renewed every third of it: much shorter and a busy database or a slow chat call lets it run out mid-send.
            throw new IllegalArgumentException("acceltriage.chat.outbox.claim must be at least 3s, not " + claim);
        }
        if (idleTick.isNegative() || idleTick.isZero()) {
            throw new IllegalArgumentException("acceltriage.chat.outbox.idle-tick must be longer than 0, not " + idleTick);
        }
        this.claim = claim;
        this.idleTick = idleTick;
        this.outbox = outbox;
        this.handlers = handlers.stream().toList();
        this.audit = audit;
        this.enabled = enabled;
        // Unique per process: a claim left by a process that died must run out, never be taken for this one's.
        this.claimer = replica.filter(r -> !r.isBlank()).orElse("replica") + "/" + UUID.randomUUID().toString().substring(0, 8);
        metrics.chatOutboxBacklog(outbox::pending);
    }

    void onStart(@Observes StartupEvent event) {
        if (enabled) {
            sender = new OutboxSender(outbox, handlers, audit, claimer, OutboxSender.FIRST_BACKOFF, OutboxSender.GIVE_UP_AFTER,
                    OutboxSender.POLL, idleTick, claim).start();
        }
    }

    /**
     * Queues a message of its own (a reply, a card) in a transaction of its own. False: the store
     * refused it, and the caller still holds it.
     */
    public boolean queue(Outgoing.Draft message) {
        try {
            outbox.database().transaction(tx -> outbox.enqueue(tx, message));
        } catch (io.acceltriage.store.StoreException e) {
            return false;
        }
        wake();
        return true;
    }

    /** Something was queued: this replica's sender looks at once. */
    public void wake() {
        OutboxSender s = sender;
        if (s != null) s.wake();
    }

    @PreDestroy
    void stop() {
        OutboxSender s = sender;
        if (s != null) s.close();
    }
}
