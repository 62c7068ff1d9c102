package io.acceltriage.action;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Leadership by a Kubernetes Lease: the replica that holds it executes actions, the others keep
 * taking alerts and leave actions PLANNED. Losing the lease (a failed renewal, a partition) turns
 * {@link #isLeader} false at once, and the executor checks it before every attempt.
 */
public final class LeaseLeadership implements Leadership, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaseLeadership.class);
    public static final String LEASE = "acceltriage-actor";

    private final AtomicBoolean leader = new AtomicBoolean();
    private final String identity;
    private final KubernetesClient client;
    private final String namespace;
    private final Duration leaseDuration;
    private volatile boolean closed;
    private volatile CompletableFuture<?> election;

    public LeaseLeadership(KubernetesClient client, String namespace, String identity, Duration leaseDuration) {
        this.identity = identity;
        this.client = client;
        this.namespace = namespace;
        this.leaseDuration = leaseDuration;
        stand();
    }

    /**
     * Runs for the lease, and again whenever a run ends: fabric8's elector ends once it has lost the lease, and a
     * replica that lost it once (a slow renewal under load) would otherwise never be a candidate again, so when the
     * holder then died nobody would act (ReplicasIT saw exactly that).
     */
    private void stand() {
        if (closed) return;
        Duration renew = leaseDuration.multipliedBy(2).dividedBy(3);
        Duration retry = leaseDuration.dividedBy(5);
        var config = new LeaderElectionConfigBuilder()
                .withName("acceltriage")
                .withLock(new LeaseLock(namespace, LEASE, identity))
                .withLeaseDuration(leaseDuration)
                .withRenewDeadline(renew)
                .withRetryPeriod(retry)
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(
                        () -> {
                            leader.set(true);
                            LOG.infof("%s holds lease %s/%s: this replica executes actions", identity, namespace, LEASE);
                        },
                        () -> {
                            leader.set(false);
                            LOG.warnf("%s lost lease %s/%s: this replica stops acting", identity, namespace, LEASE);
                        },
                        newLeader -> LOG.infof("lease %s/%s held by %s", namespace, LEASE, newLeader)))
                .build();
        CompletableFuture<?> run = client.leaderElector().withConfig(config).build().start();
        this.election = run;
        run.whenComplete((ended, failed) -> {
            leader.set(false);
            // after a retry period, so a run that ends at once (an API server refusing) is no busy loop
            if (!closed) CompletableFuture.delayedExecutor(retry.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).execute(this::stand);
        });
    }

    @Override
    public boolean isLeader() {
        return leader.get();
    }

    public String identity() {
        return identity;
    }

    @Override
    public void close() {
        closed = true;
        leader.set(false);
        election.cancel(true);
    }
}
