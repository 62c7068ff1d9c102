package io.acceltriage.policy;

import io.acceltriage.config.DataFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * The policy in force, reloaded when its file changes. The file's modification time is polled
 * (a watch service misses edits through Kubernetes ConfigMap symlink swaps). A file that fails to
 * load never replaces the last good policy: the failure is logged and reported, and the agent keeps
 * acting under what it had.
 */
public final class PolicySource implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PolicySource.class);

    /** Told of every reload: the new policy, or why the file was refused. */
    public interface Listener {
        void reloaded(String file, Policy policy);

        void refused(String file, String reason, Policy kept);
    }

    private final String file;
    private final AtomicReference<Policy> current;
    private final Listener listener;
    private final java.util.function.UnaryOperator<Policy> adjust;
    private volatile FileTime seen;
    private ScheduledExecutorService poller;

    /** Loads the file now; an invalid file throws, so the service refuses to start. */
    public PolicySource(String file, Listener listener) {
        this(file, listener, java.util.function.UnaryOperator.identity());
    }

    /**
     * The same, with {@code adjust} applied to the file's policy at load and at every reload (the
     * sandbox's generated admin as an approver of that run only).
     */
    public PolicySource(String file, Listener listener, java.util.function.UnaryOperator<Policy> adjust) {
        this.file = file;
        this.listener = listener;
        this.adjust = adjust;
        this.seen = mtime();
        this.current = new AtomicReference<>(adjust.apply(Policy.load(file)));
    }

    public Policy current() {
        return current.get();
    }

    public String file() {
        return file;
    }

    /** Starts polling the file every {@code every}. A bundled policy (no file on disk) never changes. */
    public synchronized PolicySource watch(Duration every) {
        if (poller == null && Files.isRegularFile(Path.of(file))) {
            poller = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "acceltriage-policy-reload");
                t.setDaemon(true);
                return t;
            });
            poller.scheduleWithFixedDelay(this::check, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /** Reloads when the file's modification time moved; returns true when a new policy took effect. */
    public boolean check() {
        FileTime now = mtime();
        if (now == null || now.equals(seen)) return false;
        seen = now;
        try {
            Policy p = adjust.apply(Policy.load(file));
            current.set(p);
            LOG.infof("policy reloaded: %s (%s)", p.name(), file);
            listener.reloaded(file, p);
            return true;
        } catch (DataFiles.InvalidDataFile | IllegalArgumentException e) {
            LOG.errorf("policy %s refused, keeping %s: %s", file, current.get().name(), e.getMessage());
            listener.refused(file, e.getMessage(), current.get());
            return false;
        } catch (RuntimeException e) {
            LOG.errorf(e, "policy %s could not be reloaded, keeping %s", file, current.get().name());
            listener.refused(file, String.valueOf(e.getMessage()), current.get());
            return false;
        }
    }

    private FileTime mtime() {
        try {
            Path p = Path.of(file);
            return Files.isRegularFile(p) ? Files.getLastModifiedTime(p) : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    @Override
    public synchronized void close() {
        if (poller != null) poller.shutdownNow();
    }
}
