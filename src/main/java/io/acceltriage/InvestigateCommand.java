package io.acceltriage;

import io.acceltriage.agent.Investigation;
import io.acceltriage.cluster.KubeApi;
import io.acceltriage.config.ClusterConfig;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.Policy;
import io.acceltriage.triage.ResponderFactory;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import picocli.CommandLine;

/**
 * One read-only triage of a node or pod against the current kubeconfig, as the MCP tool
 * {@code investigate} runs it: it prints what the responder would conclude and what policy would do,
 * and acts on nothing, opens no incident and writes no store.
 */
@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "investigate", mixinStandardHelpOptions = true,
        description = {"Triage a node or pod once, read-only, against the current kubeconfig: the diagnosis, the evidence"
                + " and what policy would do. Nothing is acted on or stored.",
                "Exit status: 0 triaged, 1 the cluster or subject could not be read, 2 bad usage."})
class InvestigateCommand implements Callable<Integer> {

    @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static class Target {
        @CommandLine.Option(names = "--node", paramLabel = "NAME", description = "the node to triage")
        String node;

        @CommandLine.Option(names = "--pod", paramLabel = "NS/NAME", description = "the pod to triage")
        String pod;
    }

    @CommandLine.Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "the cluster (default: KUBECONFIG, else ~/.kube/config; a running sandbox writes DATA_DIR/sandbox-kubeconfig.yaml)")
    Path kubeconfig;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Inject
    ResponderFactory factory;

    @Inject
    ClusterConfig cluster;

    @ConfigProperty(name = "acceltriage.policy.file", defaultValue = "policies/default.yaml")
    String policyFile;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Subject subject = subject(target.node, target.pod);
        if (subject == null) {
            err.println("investigate: --pod takes NAMESPACE/NAME and --node a node name, got \""
                    + (target.pod != null ? target.pod : target.node) + "\"");
            return 2;
        }
        Optional<Path> file = CommandCluster.kubeconfig(kubeconfig);
        if (file.isEmpty() || !java.nio.file.Files.isRegularFile(file.get())) {
            err.println("investigate: no kubeconfig " + file.map(f -> f + " ").orElse("")
                    + "to read; pass --kubeconfig FILE (a running sandbox writes DATA_DIR/sandbox-kubeconfig.yaml) or set KUBECONFIG");
            return 2;
        }
        Policy policy = Policy.load(policyFile);
        try (CommandCluster c = CommandCluster.open(file.get(), cluster)) {
            String problem = c.unreachable();
            if (problem == null) problem = missing(c, subject);
            if (problem != null) {
                err.println("investigate: " + problem);
                return 1;
            }
            Investigation found = Investigation.of(factory.build(new KubeApi(c.client()), c.metrics(), policy).assess(subject, List.of()));
            print(spec.commandLine().getOut(), found, policy, c);
            return 0;
        }
    }

    static Subject subject(String node, String pod) {
        if (pod != null) {
            String[] nsName = pod.split("/", -1);
            return nsName.length == 2 && io.acceltriage.config.KubernetesNames.isName(nsName[0])
                    && io.acceltriage.config.KubernetesNames.isName(nsName[1]) ? Subject.pod(nsName[0], nsName[1]) : null;
        }
        return io.acceltriage.config.KubernetesNames.isName(node) ? Subject.node(node) : null;
    }

    private static String missing(CommandCluster c, Subject s) {
        boolean there = s.kind() == Subject.Kind.NODE ? c.client().nodes().withName(s.name()).get() != null
                : c.client().pods().inNamespace(s.namespace()).withName(s.name()).get() != null;
        return there ? null : "no " + s.key() + " in the cluster at " + c.server() + " (from " + c.kubeconfig() + ")";
    }

    private static void print(PrintWriter out, Investigation i, Policy policy, CommandCluster c) {
        out.println("investigate " + i.subject() + " at " + c.server() + " — read-only: nothing was acted on or stored"
                + " (budgets and cooldowns count no past actions: no store is read)");
        out.printf(java.util.Locale.ROOT, "diagnosis: %s, confidence %.2f: %s%n", i.family(), i.confidence(), i.cause());
        section(out, "evidence", i.evidence());
        section(out, "could not read", i.gaps());
        section(out, "policy " + policy.name() + " would do", i.policyWouldDo());
        section(out, "needs a person", i.needsAPerson());
        out.flush();
    }

    /** An empty section is left out, not printed as "none". */
    private static void section(PrintWriter out, String title, List<String> lines) {
        if (lines.isEmpty()) return;
        out.println(title + ":");
        lines.forEach(l -> out.println("  " + l));
    }
}
