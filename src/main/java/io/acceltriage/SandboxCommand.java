package io.acceltriage;

import io.quarkus.runtime.Quarkus;
import jakarta.enterprise.context.Dependent;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine;

/**
 * The simulated cluster without the responder: its API server, its exporters and its fault injection,
 * on loopback, for several services (replicas in kubeconfig mode) to share one cluster. Injected faults
 * are not delivered to this process (it triages nothing); the answer carries the Alertmanager payload
 * for the caller to deliver where it wants.
 */
@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "sandbox", mixinStandardHelpOptions = true, description = {
        "Serve the simulated cluster alone (no triage, no actions), on loopback, for other processes to share",
        "through the kubeconfig it writes into the data folder (ACCELTRIAGE_CLUSTER_MODE=kubeconfig KUBECONFIG=that file)."})
class SandboxCommand implements Runnable {

    @ConfigProperty(name = "quarkus.http.port")
    int port;

    @ConfigProperty(name = "acceltriage.data-dir", defaultValue = "./data")
    String dataDir;

    @Override
    public void run() {
        String base = "http://127.0.0.1:" + port;
        System.out.println("acceltriage sandbox is up on " + base + " (the simulated cluster alone: nothing triages or acts here)");
        System.out.println("  kubeconfig:       " + io.acceltriage.sandbox.SandboxKubeconfig.in(dataDir).toAbsolutePath()
                + " (written once the cluster is seeded)");
        System.out.println("  inject a fault:   POST " + base + "/api/v1/sandbox/faults (the answer's \"payload\" is the alert to deliver)");
        System.out.println("  writes seen:      GET " + base + "/api/v1/sandbox/writes");
        Quarkus.waitForExit();
    }
}
