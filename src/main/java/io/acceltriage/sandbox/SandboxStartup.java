package io.acceltriage.sandbox;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Starts the sandbox with the application in sandbox mode, so the first request does not pay for it,
 * and leaves it unstarted in any other mode.
 */
@ApplicationScoped
class SandboxStartup {

    void onStart(@Observes StartupEvent event,
            @ConfigProperty(name = "acceltriage.cluster.mode", defaultValue = "sandbox") String mode,
            Instance<Sandbox> sandbox) {
        if ("sandbox".equalsIgnoreCase(mode.trim())) {
            sandbox.get().client();
        }
    }
}
