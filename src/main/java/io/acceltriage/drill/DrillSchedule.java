package io.acceltriage.drill;

import io.acceltriage.action.Executor;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicySource;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Runs the policy's scheduled drills ({@code drills: [{name, every}]}): the leader looks every minute and
 * runs each drill with no recorded run within its interval (the audit record is the memory, across
 * restarts), on the sandbox by injecting its fault, against a real cluster as a shadow drill (its alert
 * only, its fault laid over its own incident's evidence, every action a dry run: nothing changes). Off
 * for the command-line tools.
 */
@ApplicationScoped
class DrillSchedule {

    private static final Logger LOG = Logger.getLogger(DrillSchedule.class);

    private final boolean enabled;
    private final DrillRunner runner;
    private final PolicySource policy;
    private final Executor executor;

    DrillSchedule(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            DrillRunner runner, PolicySource policy, Executor executor) {
        this.enabled = enabled;
        this.runner = runner;
        this.policy = policy;
        this.executor = executor;
    }

    @Scheduled(every = "${acceltriage.drills.check-every:60s}", delayed = "30s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!enabled || !executor.leads()) return;
        Instant now = Instant.now();
        for (Policy.Drill d : policy.current().drillsOrEmpty()) {
            if (!due(runner.lastFinished(d.name(), now.minus(d.interval())), d.interval(), now)) continue;
            try {
                // The service's own mode: the sandbox's drill there, a shadow drill against a real cluster.
                DrillResult r = runner.run(d.name(), "schedule");
                LOG.infof("scheduled drill %s %s", d.name(), r.passed() ? "passed" : "FAILED: " + r.problem());
            } catch (RuntimeException e) {
                LOG.warnf("scheduled drill %s did not run: %s; tried again at the next tick", d.name(), e.getMessage());
            }
        }
    }

    /** A drill is due when it never ran, or its last run finished at least {@code every} ago. */
    static boolean due(Optional<Instant> last, Duration every, Instant now) {
        return last.isEmpty() || !last.get().plus(every).isAfter(now);
    }
}
