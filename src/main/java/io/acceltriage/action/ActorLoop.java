package io.acceltriage.action;

import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The leader's chores every few seconds: propose the later steps of a repair whose step before
 * completed, run actions other replicas planned (or a crash left PLANNED, or that waited for the step
 * before them), carry out undos people sent to other replicas, and expire approvals nobody gave in time.
 * Off for the command-line tools.
 */
@ApplicationScoped
class ActorLoop {

    private static final Logger LOG = Logger.getLogger(ActorLoop.class);

    private final boolean enabled;
    private final Instance<Executor> executor;
    private final Instance<PolicyApprovals> approvals;

    ActorLoop(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            Instance<Executor> executor, Instance<PolicyApprovals> approvals) {
        this.enabled = enabled;
        this.executor = executor;
        this.approvals = approvals;
    }

    @Scheduled(every = "${acceltriage.actions.resume-every:5s}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!enabled || !executor.get().leads()) return;
        try {
            executor.get().followUps();
            executor.get().resumePlanned();
            executor.get().runRequestedUndos();
            approvals.get().expireStale();
        } catch (RuntimeException e) {
            LOG.warnf("actor loop: %s; retried at the next tick", e.getMessage());
        }
    }
}
