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
        LOG.infof("[%s] %s %s: %s", n.event(), n.incidentId(), n.subject(), n.summary().replace('\n', ' '));
    }
}
