package io.acceltriage;

import io.acceltriage.cluster.ClusterReads;
import io.acceltriage.cluster.WatchedCluster;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the watched cluster view has its first full lists (reads meanwhile go to the API server); with the view off, says so. */
@Readiness
@ApplicationScoped
class ClusterViewReadiness implements HealthCheck {

    private final ClusterReads reads;

    @Inject
    ClusterViewReadiness(ClusterReads reads) {
        this.reads = reads;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("cluster-view");
        if (!(reads instanceof WatchedCluster view)) {
            return b.up().withData("watch", "off").build();
        }
        boolean synced = view.synced();
        b.status(synced).withData("watch", synced ? "synced" : "waiting for the first list of every watched kind");
        view.sizes().forEach((resource, n) -> b.withData(resource, n));
        return b.build();
    }
}
