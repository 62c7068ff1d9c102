package io.acceltriage;

import io.quarkus.runtime.Quarkus;
import jakarta.enterprise.context.Dependent;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the service (the default command).")
class ServeCommand implements Runnable {

    @ConfigProperty(name = "quarkus.http.port")
    int port;

    @ConfigProperty(name = "acceltriage.cluster.mode")
    String mode;

    @jakarta.inject.Inject
    io.acceltriage.access.AccessTokens access;

    @jakarta.inject.Inject
    io.acceltriage.audit.AuditLog audit;

    @Override
    public void run() {
        // Only the service starts a key in the chain; `audit verify` and the other tools only read it.
        try {
            audit.useConfiguredKey();
        } catch (io.acceltriage.store.StoreException e) {
            // The service starts without its store (readiness says so); the next append starts the key.
            org.jboss.logging.Logger.getLogger(ServeCommand.class).warnf("audit: the chain key is started at the next append: %s",
                    e.getMessage());
        }
        String base = "http://localhost:" + port;
        System.out.println("acceltriage is up on " + base + " (cluster: " + mode + ")");
        System.out.println("  incidents page:   " + base + "/");
        System.out.println("  incidents API:    " + base + "/api/v1/incidents");
        System.out.println("  readiness:        " + base + "/q/health/ready");
        // The generated token is the only way in to an embedded default, so the banner shows it.
        access.generated().ifPresentOrElse(
                t -> System.out.println("  admin token:      " + t.reveal()
                        + "   (generated for this run: sign in at " + base + "/login, or send Authorization: Bearer <token>;"
                        + " set ACCELTRIAGE_ACCESS_TOKENS to issue your own)"),
                () -> System.out.println("  access:           the tokens in ACCELTRIAGE_ACCESS_TOKENS / ACCELTRIAGE_ACCESS_FILE"));
        if ("sandbox".equalsIgnoreCase(mode)) {
            System.out.println("  sandbox nodes:    " + base + "/api/v1/sandbox/nodes");
            System.out.println("  inject a fault:   curl -XPOST " + base
                    + "/api/v1/sandbox/faults -H \"Authorization: Bearer $TOKEN\" -H 'Content-Type: application/json' -d '{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}'");
        }
        Quarkus.waitForExit();
    }
}
