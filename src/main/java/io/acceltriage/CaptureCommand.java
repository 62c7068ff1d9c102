package io.acceltriage;

import io.acceltriage.config.ClusterConfig;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.incident.Subject;
import io.acceltriage.sandbox.SandboxKubeconfig;
import io.acceltriage.scenario.Capture;
import io.acceltriage.triage.ResponderFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "capture", mixinStandardHelpOptions = true, description = "Snapshot the cluster around a node or pod into a scenario file, secrets stripped.")
class CaptureCommand implements Callable<Integer> {

    @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static class Target {
        @CommandLine.Option(names = "--node", paramLabel = "NAME", description = "the node to capture around")
        String node;

        @CommandLine.Option(names = "--pod", paramLabel = "NS/NAME", description = "the pod to capture around")
        String pod;
    }

    @CommandLine.Option(names = "--alertname", description = "the alert to put in the scenario (default: AcceltriageCapture)")
    String alertname;

    @CommandLine.Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write here instead of standard output")
    Path output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "the cluster to capture from (in sandbox mode default: the running service's DATA_DIR/sandbox-kubeconfig.yaml)")
    Path kubeconfig;

    // Instances: in sandbox mode the application's own client would be a fresh sandbox, not the running one.
    @Inject
    Instance<KubernetesClient> client;

    @Inject
    Instance<MetricsSource> metrics;

    @Inject
    ClusterConfig cluster;

    @ConfigProperty(name = "acceltriage.data-dir", defaultValue = "./data")
    String dataDir;

    @Inject
    ResponderFactory factory;

    @Override
    public Integer call() throws Exception {
        Subject subject;
        if (target.pod != null) {
            String[] nsName = target.pod.split("/", 2);
            if (nsName.length != 2 || nsName[0].isBlank() || nsName[1].isBlank()) {
                spec.commandLine().getErr().println("--pod takes NAMESPACE/NAME, got \"" + target.pod + "\"");
                return 2;
            }
            subject = Subject.pod(nsName[0], nsName[1]);
        } else {
            subject = Subject.node(target.node);
        }
        Path file = kubeconfig;
        if (file == null && cluster.mode() == ClusterConfig.Mode.SANDBOX) {
            file = SandboxKubeconfig.in(dataDir);
            if (!Files.isRegularFile(file)) {
                spec.commandLine().getErr().println("capture: in sandbox mode it captures the running service's sandbox, and there is none: "
                        + file.toAbsolutePath().normalize() + " is not there. Start the service first (java -jar target/quarkus-app/quarkus-run.jar,"
                        + " same data folder), or pass --kubeconfig FILE, or set ACCELTRIAGE_CLUSTER_MODE=kubeconfig for a real cluster");
                return 1;
            }
        }
        String text;
        try (CommandCluster c = file == null ? null : CommandCluster.open(file, cluster)) {
            String problem = c == null ? null : c.unreachable();
            if (problem != null) {
                spec.commandLine().getErr().println("capture: " + problem);
                return 1;
            }
            text = c == null ? new Capture(client.get(), metrics.get(), factory.nodeAgents()).capture(subject, alertname, Instant.now())
                    : new Capture(c.client(), c.metrics(), factory.nodeAgents()).capture(subject, alertname, Instant.now());
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return 1;
        }
        if (output == null) {
            spec.commandLine().getOut().print(text);
            spec.commandLine().getOut().flush();
        } else {
            Files.writeString(output, text, StandardCharsets.UTF_8);
            spec.commandLine().getErr().println("wrote " + output + "; set spec.expect before adding it to a corpus");
        }
        return 0;
    }
}
