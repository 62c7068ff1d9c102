package io.acceltriage.notify;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The outbound side of one chat channel: a bounded queue drained by one thread, in order, no faster
 * than the channel allows. A message the channel refuses for now (429 with Retry-After, 5xx, no
 * answer) is retried with backoff, so rate limits delay messages but do not drop them; a channel
 * still refusing after {@link #GIVE_UP_AFTER} is down, and the message is given up so the ones behind
 * it are not held for ever. A permanent refusal (bad token, unknown channel) ends it at once. Every
 * final outcome, delivered or not, is audited with the incident, where the incident page shows it.
 */
public final class DeliveryQueue implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DeliveryQueue.class);
    static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    /** Long enough for a rate limit or a chat provider's blip, short enough that an outage ends in a record. */
    static final Duration GIVE_UP_AFTER = Duration.ofMinutes(30);
    private static final Duration OFFER_WAIT = Duration.ofSeconds(2);

    /** How one attempt went. {@code retryAfter} set: try the same message again, not before then. */
    public record Result(boolean delivered, Duration retryAfter, String detail) {
        public static Result ok(String detail) {
            return new Result(true, null, detail);
        }

        public static Result retry(Duration after, String detail) {
            return new Result(false, after == null ? Duration.ZERO : after, detail);
        }

        public static Result failed(String detail) {
            return new Result(false, null, detail);
        }

        boolean retryable() {
            return !delivered && retryAfter != null;
        }
    }

    /** One message, sent when its turn comes; it reads what it needs (such as a stored ts) at that time. */
    @FunctionalInterface
    public interface Job {
        Result attempt();
    }

    private record Item(String incidentId, String what, Job job) {}

    private final String channel;
    private final Duration minGap;
    private final Duration firstBackoff;
    private final Duration giveUpAfter;
    private final AuditLog audit;
    private final BlockingQueue<Item> queue;
    private final Thread worker;
    private volatile boolean closed;

    /** {@code minGap}: the least time between two requests (Teams: 250 ms, four per second). */
    public DeliveryQueue(String channel, int capacity, Duration minGap, AuditLog audit) {
        this(channel, capacity, minGap, audit, FIRST_BACKOFF, GIVE_UP_AFTER);
    }

    /** {@code firstBackoff} doubles up to 5 minutes; after {@code giveUpAfter} of refusals a message is given up. */
    public DeliveryQueue(String channel, int capacity, Duration minGap, AuditLog audit, Duration firstBackoff, Duration giveUpAfter) {
        this.channel = channel;
        this.minGap = minGap;
        this.firstBackoff = firstBackoff;
        this.giveUpAfter = giveUpAfter;
        this.audit = audit;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.worker = new Thread(this::drain, "acceltriage-" + channel + "-out");
        this.worker.setDaemon(true);
        this.worker.start();
    }

    /**
     * Queues a message; waits briefly when the queue is full. False: the queue stayed full, the
     * caller must keep the message (the escalation records it as not delivered and retryable).
     */
    public boolean offer(String incidentId, String what, Job job) {
        try {
            return !closed && queue.offer(new Item(incidentId, what, job), OFFER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public int pending() {
        return queue.size();
    }

    private void drain() {
        long lastSent = 0;
        while (!closed) {
            Item item;
            try {
                item = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            int attempts = 0;
            Duration backoff = firstBackoff;
            long giveUpAt = System.nanoTime() + giveUpAfter.toNanos();
            Result result;
            while (true) {
                long wait = lastSent + minGap.toMillis() - System.currentTimeMillis();
                if (wait > 0 && !sleep(wait)) {
                    return;
                }
                attempts++;
                try {
                    result = item.job().attempt();
                } catch (RuntimeException e) {
                    result = Result.retry(null, e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                lastSent = System.currentTimeMillis();
                if (!result.retryable()) {
                    break;
                }
                Duration pause = result.retryAfter().compareTo(backoff) > 0 ? result.retryAfter() : backoff;
                if (System.nanoTime() + pause.toNanos() - giveUpAt > 0) {
                    result = Result.failed("gave up after " + attempts + " attempts over " + Duration.ofNanos(System.nanoTime()
                            - giveUpAt + giveUpAfter.toNanos()).toSeconds() + " s; last: " + result.detail()
                            + "; check the " + channel + " service and this service's access to it");
                    break;
                }
                LOG.warnf("%s: %s not delivered (attempt %d: %s); retrying in %d ms", channel, item.what(), attempts,
                        result.detail(), pause.toMillis());
                if (!sleep(pause.toMillis())) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
            record(item, result, attempts);
        }
    }

    private void record(Item item, Result result, int attempts) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("channel", channel);
        p.put("event", item.what());
        p.put("delivered", result.delivered());
        p.put("attempts", attempts);
        p.put("detail", result.detail());
        try {
            audit.append(item.incidentId(), AuditKind.NOTIFICATION, Actors.AGENT, p);
        } catch (RuntimeException e) {
            LOG.errorf("%s: cannot audit the delivery of %s: %s", channel, item.what(), e.getMessage());
        }
        if (!result.delivered()) {
            LOG.errorf("%s: %s was not delivered%s: %s", channel, item.what(),
                    item.incidentId() == null ? "" : " (incident " + item.incidentId() + ")", result.detail());
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        worker.interrupt();
        if (!queue.isEmpty()) {
            LOG.warnf("%s: %d message(s) still queued at shutdown were not sent", channel, queue.size());
        }
    }
}
