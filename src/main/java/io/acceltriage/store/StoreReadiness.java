package io.acceltriage.store;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready only while the store answers: an alert acknowledged must be stored first. */
@Readiness
@ApplicationScoped
class StoreReadiness implements HealthCheck {

    private final Database database;

    StoreReadiness(Database database) {
        this.database = database;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("store").status(database.reachable()).build();
    }
}
