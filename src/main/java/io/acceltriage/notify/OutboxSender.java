package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * Sends what the chat outbox holds: one thread per channel claims the next message it may send, tries
 * it once through the kind's {@link Outbound}, and records how it went. A message the channel refuses
 * for now (429 with Retry-After, 5xx, no answer) is due again after a doubling backoff (or the
 * channel's Retry-After, and then the whole channel waits), so rate limits delay messages but drop
 * none; one still refused {@link #giveUpAfter} after it was queued is given up, so the thread behind it
 * is not held for ever. A permanent refusal ends it at once. Every final outcome is audited with the
 * incident, in the transaction that marks it done. A sender that dies mid-message leaves its claim to
 * run out; then any replica takes it over, marked {@link Outgoing#retaken}: the dead sender may have been
 * answered before it could record it, so a handler that can ask the channel (Slack) looks for it first;
 * one that cannot (a Teams webhook) sends it again.
 */
public final class OutboxSender implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OutboxSender.class);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    /** Long enough for a rate limit or a chat provider's blip, short enough that an outage ends in a record. */
    static final Duration GIVE_UP_AFTER = Duration.ofMinutes(30);
    /** How long a claim holds unless renewed (acceltriage.chat.outbox.claim); renewed every third of it while sending. */
    static final Duration LEASE = Duration.ofSeconds(30);
    /**
     * How soon a notice another replica queued is noticed, on a channel that tells incidents; this replica's
     * own messages wake its sender at once.
     */
    static final Duration POLL = Duration.ofSeconds(1);
    /**
     * How often a channel that tells no incidents (no chat channel configured: only replies and cards,
     * which the replica that queues them wakes its own sender for) looks anyway: for what a dead replica
     * left behind. A retry due sooner is still sent on time.
     */
    static final Duration IDLE_TICK = Duration.ofSeconds(30);

    private final ChatOutbox outbox;
    private final List<Outbound> handlers;
    private final AuditLog audit;
    private final String claimer;
    private final Duration firstBackoff;
    private final Duration giveUpAfter;
    private final Duration poll;
    private final Duration idleTick;
    private final Duration lease;
    private final Map<String, Instant> pausedUntil = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSent = new ConcurrentHashMap<>();
    private final List<Thread> workers = new CopyOnWriteArrayList<>();
    /** Messages this sender is sending now: their claims are renewed so that no other replica sends them too. */
    private final java.util.Set<Long> sending = ConcurrentHashMap.newKeySet();
    private final Object work = new Object();
    private volatile boolean closed;

    OutboxSender(ChatOutbox outbox, List<Outbound> handlers, AuditLog audit, String claimer, Duration firstBackoff,
            Duration giveUpAfter, Duration poll) {
        this(outbox, handlers, audit, claimer, firstBackoff, giveUpAfter, poll, IDLE_TICK, LEASE);
    }

    OutboxSender(ChatOutbox outbox, List<Outbound> handlers, AuditLog audit, String claimer, Duration firstBackoff,
            Duration giveUpAfter, Duration poll, Duration idleTick, Duration lease) {
        this.outbox = outbox;
        this.handlers = List.copyOf(handlers);
        this.audit = audit;
        this.claimer = claimer;
        this.firstBackoff = firstBackoff;
        this.giveUpAfter = giveUpAfter;
        this.poll = poll;
        this.idleTick = idleTick;
        this.lease = lease;
    }

    /** One sending thread per channel that has a handler. */
    OutboxSender start() {
        for (String channel : handlers.stream().map(Outbound::channel).distinct().toList()) {
            Thread t = new Thread(() -> run(channel), "acceltriage-" + channel + "-out");
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        Thread renewer = new Thread(this::renewClaims, "acceltriage-chat-claims");
        renewer.setDaemon(true);
        workers.add(renewer);
        renewer.start();
        return this;
    }

    /** Something was queued here: look now rather than at the next poll. */
    public void wake() {
        synchronized (work) {
            work.notifyAll();
        }
    }

    private void run(String channel) {
        // Only notices arrive unannounced (queued by any replica's triage): a channel without them waits to be woken.
        Duration look = handlers.stream().anyMatch(h -> h.channel().equals(channel) && Outgoing.NOTICE.equals(h.kind()))
                ? poll : idleTick;
        while (!closed) {
            try {
                Instant paused = pausedUntil.getOrDefault(channel, Instant.EPOCH);
                if (Instant.now().isBefore(paused)) {
                    idle(Duration.between(Instant.now(), paused), look);
                    continue;
                }
                Instant now = Instant.now();
                Optional<Instant> due = outbox.nextDue(channel);
                if (due.isEmpty() || due.get().isAfter(now)) {
                    idle(due.map(d -> Duration.between(now, d)).orElse(look), look);
                    continue;
                }
                Optional<Outgoing> next = outbox.claim(channel, claimer, now, lease);
                if (next.isEmpty()) {
                    // Due, but behind a message of its thread that another replica is sending.
                    idle(look, look);
                } else {
                    send(next.get());
                }
            } catch (RuntimeException e) {
                if (closed) return;
                LOG.warnf("%s: the chat outbox cannot be read (%s); trying again", channel, e.getMessage());
                idle(poll, poll);
            }
        }
    }

    /**
     * A slow chat service or a loaded machine can make one message take longer than a claim: renewing
     * the claims of what is in flight keeps it this sender's, so another replica does not send it again.
     */
    private void renewClaims() {
        while (!closed) {
            synchronized (work) {
                try {
                    work.wait(lease.toMillis() / 3);
                } catch (InterruptedException e) {
                    return;
                }
            }
            java.util.Set<Long> now = java.util.Set.copyOf(sending);
            if (now.isEmpty() || closed) continue;
            try {
                outbox.renew(now, claimer, Instant.now().plus(lease));
            } catch (RuntimeException e) {
                LOG.warnf("cannot renew the claims of chat messages in flight (%s); they may be sent again", e.getMessage());
            }
        }
    }

    /** One attempt at {@code m} and its record: delivered, due again later, or given up. */
    void send(Outgoing m) {
        sending.add(m.id());
        try {
            attempt(m);
        } finally {
            sending.remove(m.id());
        }
    }

    private void attempt(Outgoing m) {
        Outbound handler = handlers.stream().filter(h -> h.channel().equals(m.channel()) && h.kind().equals(m.kind()))
                .findFirst().orElse(null);
        if (handler == null) {
            finish(m, Delivery.failed("this replica has no sender for " + m.kind() + " messages of " + m.channel()
                    + ": configure the channel alike on every replica"));
            return;
        }
        long wait = lastSent.getOrDefault(m.channel(), 0L) + handler.minGap().toMillis() - System.currentTimeMillis();
        if (wait > 0) sleep(wait);
        Delivery result;
        try {
            result = handler.attempt(m);
        } catch (RuntimeException e) {
            result = Delivery.retry(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        lastSent.put(m.channel(), System.currentTimeMillis());
        if (!result.retryable()) {
            finish(m, result);
            return;
        }
        Duration backoff = firstBackoff.multipliedBy(1L << Math.min(20, m.attempts() - 1));
        backoff = backoff.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff;
        Duration pause = result.retryAfter().compareTo(backoff) > 0 ? result.retryAfter() : backoff;
        Instant due = Instant.now().plus(pause);
        if (due.isAfter(m.queuedAt().plus(giveUpAfter))) {
            finish(m, Delivery.failed("gave up after " + m.attempts() + " attempts over "
                    + Duration.between(m.queuedAt(), Instant.now()).toSeconds() + " s; last: " + result.detail()
                    + "; check the " + m.channel() + " service and this service's access to it"));
            return;
        }
        if (!result.retryAfter().isZero()) {
            // The channel said when (a rate limit): everything else of it waits too, rather than earn more 429s.
            pausedUntil.put(m.channel(), Instant.now().plus(result.retryAfter()));
        }
        LOG.warnf("%s: %s not delivered (attempt %d: %s); retrying in %d ms", m.channel(), m.what(), m.attempts(),
                result.detail(), pause.toMillis());
        outbox.retryAt(m, due, result.detail());
    }

    private void finish(Outgoing m, Delivery result) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("channel", m.channel());
        p.put("event", m.what());
        p.put("delivered", result.delivered());
        p.put("attempts", m.attempts());
        p.put("detail", result.detail());
        outbox.database().transaction(tx -> {
            outbox.finish(tx, m, result.delivered(), result.detail());
            audit.append(tx, m.incidentId(), AuditKind.NOTIFICATION, Actors.AGENT, p);
            return null;
        });
        if (!result.delivered()) {
            LOG.errorf("%s: %s was not delivered%s: %s", m.channel(), m.what(),
                    m.incidentId() == null ? "" : " (incident " + m.incidentId() + ")", result.detail());
        }
    }

    /** Waits {@code d}, at most {@code cap}, or until woken. */
    private void idle(Duration d, Duration cap) {
        synchronized (work) {
            try {
                if (!closed) work.wait(Math.max(1, Math.min(d.toMillis(), cap.toMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                closed = true;
            }
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        workers.forEach(Thread::interrupt);
        for (Thread t : workers) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
