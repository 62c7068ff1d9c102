package io.acceltriage.chat;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Where chat requests are worked on after they were acknowledged: Slack wants an answer within 3 s,
 * Teams within 5 s, and an investigation can take longer. Bounded, so a flood of requests is refused
 * (and told so) instead of piling up without end.
 */
@ApplicationScoped
public class ChatWork {

    private static final Logger LOG = Logger.getLogger(ChatWork.class);
    static final int THREADS = 4;
    static final int BACKLOG = 100;

    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(BACKLOG), r -> {
                Thread t = new Thread(r, "acceltriage-chat");
                t.setDaemon(true);
                return t;
            });

    /** Runs the work later; false when the backlog is full. */
    public boolean run(Runnable work) {
        try {
            pool.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.errorf(e, "chat request failed");
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Starts work whose result the caller may wait for a while, or take later; null when the backlog is full. */
    public <T> CompletableFuture<T> submit(Supplier<T> work) {
        try {
            return CompletableFuture.supplyAsync(work, pool);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }
}
