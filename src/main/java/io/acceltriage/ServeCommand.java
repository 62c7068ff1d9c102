package io.acceltriage;

import io.quarkus.runtime.Quarkus;
import jakarta.enterprise.context.Dependent;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "serve", description = "Run the service (the default command).")
class ServeCommand implements Runnable {

    @ConfigProperty(name = "quarkus.http.port")
    int port;

    @ConfigProperty(name = "acceltriage.cluster.mode")
    String mode;

    @Override
    public void run() {
        String base = "http://localhost:" + port;
        System.out.println("acceltriage is up on " + base + " (cluster: " + mode + ")");
        System.out.println("  incidents page:   " + base + "/");
        System.out.println("  incidents API:    " + base + "/api/v1/incidents");
        System.out.println("  readiness:        " + base + "/q/health/ready");
        if ("sandbox".equalsIgnoreCase(mode)) {
            System.out.println("  sandbox nodes:    " + base + "/api/v1/sandbox/nodes");
            System.out.println("  inject a fault:   curl -XPOST " + base
                    + "/api/v1/sandbox/faults -H 'Content-Type: application/json' -d '{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}'");
        }
        Quarkus.waitForExit();
    }
}
