package io.acceltriage.action;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.policy.PolicySource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The leader looks at the watched node-agent DaemonSets every {@code acceltriage.rollouts.canary-every} (see
 * {@link CanaryRollouts}) and tells what a canary decided as a {@link RolloutCanary} event (notify escalates a held
 * one). A canary runs to its end inside one look (bounded by {@code rollouts.canary.timeout}); looks never overlap.
 * Off for the command-line tools.
 */
@ApplicationScoped
class CanaryWatch {

    private static final Logger LOG = Logger.getLogger(CanaryWatch.class);

    private final boolean enabled;
    private final Leadership leadership;
    private final CanaryRollouts canaries;
    private final Event<RolloutCanary> told;

    CanaryWatch(@ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean enabled,
            KubernetesClient client, AuditLog audit, PolicySource policy, Leadership leadership, Event<RolloutCanary> told) {
        this.enabled = enabled;
        this.leadership = leadership;
        this.told = told;
        this.canaries = new CanaryRollouts(client, NodeAgents.load(), audit, policy::current,
                new Timing(Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofMillis(500)));
    }

    @Scheduled(every = "${acceltriage.rollouts.canary-every:15s}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!enabled || !leadership.isLeader()) return;
        try {
            for (RolloutCanary c : canaries.step()) {
                LOG.infof("rollout canary of DaemonSet %s revision %s: %s", c.daemonSet(), c.revision(),
                        c.released() ? "passed, released" : "failed, held: " + String.join("; ", c.failures()));
                told.fire(c);
            }
        } catch (RuntimeException e) {
            LOG.warnf("rollout canary: %s; looked at again at the next tick", e.getMessage());
        }
    }
}
