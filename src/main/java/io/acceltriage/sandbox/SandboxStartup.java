package io.acceltriage.sandbox;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Starts the sandbox with the application in sandbox mode, so the first request does not pay for it,
 * and leaves it unstarted in any other mode.
 */
@ApplicationScoped
class SandboxStartup {

    private static final Logger LOG = Logger.getLogger(SandboxStartup.class);

    enum State { OFF, STARTING, STARTED, FAILED }

    private volatile State state = State.OFF;

    State state() {
        return state;
    }

    void onStart(@Observes StartupEvent event,
            @ConfigProperty(name = "acceltriage.cluster.mode", defaultValue = "sandbox") String mode,
            @ConfigProperty(name = "acceltriage.processing.enabled", defaultValue = "true") boolean serving,
            @ConfigProperty(name = "acceltriage.sandbox.serve-only", defaultValue = "false") boolean serveOnly,
            @ConfigProperty(name = "acceltriage.data-dir", defaultValue = "./data") String dataDir,
            Instance<Sandbox> sandbox) {
        // The command-line tools (eval, audit, …) run with processing off and build their own worlds; the sandbox
        // command runs with processing off too, to serve the cluster alone.
        if ((serving || serveOnly) && "sandbox".equalsIgnoreCase(mode.trim())) {
            state = State.STARTING;
            // seeding takes a second or two on a cold JVM; the service need not wait for it, and whoever
            // asks the sandbox for its client first simply waits for the bean to finish starting
            Thread start = new Thread(() -> {
                try {
                    sandbox.get().client();
                    state = State.STARTED;
                    sandbox.get().writeKubeconfig(SandboxKubeconfig.in(dataDir));
                } catch (RuntimeException e) {
                    state = State.FAILED;
                    LOG.error("the sandbox did not start", e);
                }
            }, "sandbox-start");
            start.setDaemon(true);
            start.start();
        }
    }
}
