package io.acceltriage.sandbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** In sandbox mode the service is ready once its simulated cluster is seeded; in other modes this says nothing. */
@Readiness
@ApplicationScoped
class SandboxReadiness implements HealthCheck {

    private final SandboxStartup startup;

    @Inject
    SandboxReadiness(SandboxStartup startup) {
        this.startup = startup;
    }

    @Override
    public HealthCheckResponse call() {
        SandboxStartup.State state = startup.state();
        boolean up = state == SandboxStartup.State.OFF || state == SandboxStartup.State.STARTED;
        return HealthCheckResponse.named("sandbox").status(up)
                .withData("state", state.name().toLowerCase()).build();
    }
}
