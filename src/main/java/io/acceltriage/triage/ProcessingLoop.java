package io.acceltriage.triage;

import io.acceltriage.incident.AlertsArrived;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Starts triage work: at start (finishing what a crash interrupted), when alerts arrive, and every
 * few seconds as a safety net. Off for the command-line tools, which must not act on a cluster.
 * A second service on the same embedded H2 file is refused at start (several replicas need PostgreSQL).
 */
@ApplicationScoped
class ProcessingLoop {

    private final boolean enabled;
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(ProcessingLoop.class);

    private final Instance<IncidentProcessor> processor;
    private final io.acceltriage.store.Database database;

    ProcessingLoop(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            Instance<IncidentProcessor> processor, io.acceltriage.store.Database database) {
        this.enabled = enabled;
        this.database = database;
        this.processor = processor;
    }

    void onStart(@Observes StartupEvent event) {
        if (enabled) {
            java.util.Optional<String> refused = database.holdEmbeddedFile();
            if (refused.isPresent()) {
                LOG.error(refused.get());
                io.quarkus.runtime.Quarkus.asyncExit(2);
                return;
            }
            // Off the start-up thread: recovery needs the cluster (the sandbox seeds in the background) and
            // the store; the HTTP listener must not wait for them. Alerts that arrive meanwhile are stored
            // and picked up by the same worker.
            Thread recovery = new Thread(() -> processor.get().recover(), "acceltriage-recovery");
            recovery.setDaemon(true);
            recovery.start();
        }
    }

    void onAlerts(@Observes AlertsArrived event) {
        if (enabled) processor.get().wake();
    }

    @Scheduled(every = "5s", delayed = "5s")
    void tick() {
        if (enabled) processor.get().wake();
    }

    /** Renews this replica's triage leases well within their length (30 s by default), off the worker. */
    @Scheduled(every = "${acceltriage.triage.lease-renewal:10s}", delayed = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void renew() {
        if (enabled) {
            try {
                processor.get().renewLeases();
            } catch (RuntimeException e) {
                // The store is unreachable: the lease may run out and another replica take the triage over, which is safe.
            }
        }
    }
}
