package io.acceltriage.notify;

import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/** The channel that always exists: the service log. Chat channels add to it, they never replace it. */
@ApplicationScoped
class LogNotifier implements Notifier {

    private static final Logger LOG = Logger.getLogger("acceltriage.notify");

    @Override
    public String channel() {
        return "log";
    }

    @Override
    public void send(Notice n) {
        LOG.info(line(n));
    }

    /**
     * One log line per notice (a newline in it could forge a line of its own), but the summary's lines stay
     * apart: "Needs a person …" and "Work lost …" must not run together.
     */
    static String line(Notice n) {
        return "[%s] %s %s: %s".formatted(n.event(), n.incidentId(), n.subject(), n.summary().strip().replaceAll("\\s*\\R+\\s*", " / "));
    }
}
