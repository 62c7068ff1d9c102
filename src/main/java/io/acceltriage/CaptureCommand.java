package io.acceltriage;

import io.acceltriage.config.ClusterConfig;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.incident.Subject;
import io.acceltriage.sandbox.Sandbox;
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
import java.util.List;
import java.util.concurrent.Callable;
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

    @Inject
    KubernetesClient client;

    @Inject
    MetricsSource metrics;

    @Inject
    ClusterConfig cluster;

    @Inject
    Instance<Sandbox> sandbox;

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
        String text;
        try {
            text = new Capture(client, metricsSource(), factory.nodeAgents()).capture(subject, alertname, Instant.now());
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

    /**
     * Commands run without the HTTP port, and the sandbox serves its exporters through it: in sandbox
     * mode read the simulated exporters directly.
     */
    private MetricsSource metricsSource() {
        if (cluster.mode() != ClusterConfig.Mode.SANDBOX) return metrics;
        return node -> {
            try {
                String text = sandbox.get().exporterText(node);
                if (text == null) throw new MetricsSource.EvidenceUnavailable("no exporter on " + node);
                return new NodeSamples(ExpositionParser.parse(text), List.of());
            } catch (RuntimeException e) {
                throw new MetricsSource.EvidenceUnavailable("exporter on " + node + " unreachable: " + e.getMessage());
            }
        };
    }
}
