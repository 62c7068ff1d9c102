package io.acceltriage.access;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.store.StoreException;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Records refused requests in the audit log: who (as far as known), what they asked, and why not.
 * The first refusal of a client (actor and address) for a reason within an interval is recorded as
 * it happened; the ones that follow within the interval are counted and recorded as one summary when
 * it ends. Without that, anyone who can reach the port writes the audit log at the rate they send
 * (2,000 requests were 2,005 records and 46 MB). Paths are cut: the client chose them.
 */
@ApplicationScoped
class Refusals {

    static final String ANONYMOUS = "anonymous";
    /** How much of a path, or a reason quoting one, is kept. */
    static final int MAX_TEXT = 200;
    /** Beyond this many clients within one interval, the rest share one count (a flood from many addresses). */
    static final int MAX_CLIENTS = 10_000;
    static final Duration INTERVAL = Duration.ofSeconds(60);
    private static final Logger LOG = Logger.getLogger(Refusals.class);

    /** Refusals of one client for one reason since {@code since}; {@code more} of them not yet recorded. */
    private static final class Window {
        final String actor;
        final String reason;
        final String remote;
        final Instant since;
        int more;
        String lastMethod;
        String lastPath;

        Window(String actor, String reason, String remote, Instant since) {
            this.actor = actor;
            this.reason = reason;
            this.remote = remote;
            this.since = since;
        }
    }

    private final AuditLog audit;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    Refusals(AuditLog audit) {
        this.audit = audit;
    }

    void record(String actor, String method, String path, String reason, String remote) {
        // A reason may quote the path; counted by the rest of it, a flood of distinct paths is still one flood.
        String why = cut(path == null || path.isEmpty() || reason == null ? reason : reason.replace(path, "<path>"));
        String client = remote;
        String key = actor + "\n" + client + "\n" + why;
        if (windows.size() >= MAX_CLIENTS && !windows.containsKey(key)) {
            // A flood from many addresses, or of many reasons: beyond the cap they share one count.
            actor = "various";
            client = "(many)";
            why = "refusals beyond " + MAX_CLIENTS + " distinct clients and reasons in one interval";
            key = "\n(many)\n";
        }
        Instant now = Instant.now();
        boolean first;
        Window ended = null;
        synchronized (this) {
            Window w = windows.get(key);
            if (w != null && now.isBefore(w.since.plus(INTERVAL))) {
                w.more++;
                w.lastMethod = method;
                w.lastPath = cut(path);
                first = false;
            } else {
                ended = w;
                windows.put(key, new Window(actor, why, client, now));
                first = true;
            }
        }
        if (ended != null) summarise(ended, now);
        if (!first) return;
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("method", method);
        p.put("path", cut(path));
        p.put("reason", why);
        p.put("remote", remote);
        append(actor, p, method, path);
    }

    /** Records the counts of intervals that ended, so a flood that stops is still told in full. */
    @Scheduled(every = "60s", delayed = "60s")
    void flush() {
        Instant now = Instant.now();
        List<Window> ended = new ArrayList<>();
        synchronized (this) {
            windows.values().removeIf(w -> {
                boolean over = !now.isBefore(w.since.plus(INTERVAL));
                if (over) ended.add(w);
                return over;
            });
        }
        ended.forEach(w -> summarise(w, now));
    }

    private void summarise(Window w, Instant until) {
        if (w.more == 0) return;
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("repeated", w.more);
        p.put("since", w.since.toString());
        p.put("until", until.toString());
        p.put("reason", w.reason);
        p.put("remote", w.remote);
        p.put("lastMethod", w.lastMethod);
        p.put("lastPath", w.lastPath);
        append(w.actor, p, w.lastMethod, w.lastPath);
    }

    private void append(String actor, Map<String, Object> p, String method, String path) {
        try {
            audit.append(null, AuditKind.ACCESS_DENIED, actor, p);
        } catch (StoreException e) {
            // The refusal stands whether or not it could be recorded; the store outage is reported elsewhere.
            LOG.warnf("could not audit a refused %s %s by %s: %s", method, cut(path), actor, e.getMessage());
        }
    }

    static String cut(String text) {
        if (text == null) return "";
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT) + "… (" + text.length() + " characters)";
    }
}
