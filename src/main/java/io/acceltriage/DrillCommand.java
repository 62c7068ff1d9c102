package io.acceltriage;

import io.acceltriage.drill.DrillResult;
import io.acceltriage.drill.DrillRunner;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "drill", mixinStandardHelpOptions = true, description = {
        "Run a named fault drill on the sandbox and time each stage of its incident against the policy's recovery objectives.",
        "The drill starts the embedded service (sandbox, store, triage; HTTP on 127.0.0.1 at a free port), resets the"
                + " simulated fleet, injects the drill's fault, follows the incident it opens and prints a stage table."
                + " The objectives are the policy's (ACCELTRIAGE_POLICY_FILE). The result is audited as drill.finished.",
        "Drills: xid79-training-node, serving-gpu, device-plugin (knowledge/drills/). Against a real cluster"
                + " (ACCELTRIAGE_CLUSTER_MODE=kubeconfig or in-cluster) only --shadow runs: the drill's alert is delivered without its fault,"
                + " the incident it opens is a dry run (every action recorded as what would have been done, nothing changes), and"
                + " detect, decide and the would-be mitigation are timed.",
        "Exit 0 when every objective is met and every expected stage happened, 1 when one is breached or missed, 2 on bad usage."})
class DrillCommand implements Callable<Integer> {

    @CommandLine.Parameters(index = "0", paramLabel = "NAME", description = "the drill to run, e.g. xid79-training-node")
    String name;

    @CommandLine.Option(names = "--shadow", description = "deliver the drill's alert only and run its incident as a dry run: nothing changes")
    boolean shadow;

    @CommandLine.Option(names = "--node", paramLabel = "NODE", description = "run the drill on NODE instead of the node its file names"
            + " (the bundled drills name the sandbox's nodes; a real cluster has its own)")
    String node;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Inject
    DrillRunner drills;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (drills.catalog().find(name).isEmpty()) {
            err.println("drill: no drill named '" + name + "'; the drills are " + drills.catalog().names());
            err.flush();
            return 2;
        }
        DrillResult r;
        try {
            r = drills.run(name, "operator:" + System.getProperty("user.name", "unknown"), shadow ? DrillResult.SHADOW : DrillResult.SANDBOX,
                    node);
        } catch (DrillRunner.Refused | IllegalArgumentException e) {
            err.println("drill: " + e.getMessage());
            err.flush();
            return 2;
        }
        out.println((r.shadow() ? "shadow drill " : "drill ") + r.drill() + (r.incidentId() == null ? "" : ": incident " + r.incidentId()
                + (r.family() == null ? "" : " (" + r.family() + ")")));
        if (!r.stages().isEmpty()) {
            out.printf("%-18s %9s  %-26s %9s  %s%n", "stage", "took", "objective", "bound", "result");
            for (DrillResult.Stage s : r.stages()) {
                out.printf("%-18s %9s  %-26s %9s  %s%n", s.stage(), seconds(s.tookSeconds()), s.objective() == null ? "-" : s.objective(),
                        seconds(s.withinSeconds()), s.status());
            }
        }
        if (r.shadow()) {
            out.println("shadow: the fault was an alert only and every action a dry run; nothing in the cluster changed,"
                    + " mitigate is when the action that would have mitigated finished");
        }
        out.println(r.passed() ? "drill passed: every objective met" : "drill FAILED: " + r.problem());
        out.flush();
        return r.passed() ? 0 : 1;
    }

    private static String seconds(Double s) {
        if (s == null) return "-";
        if (s < 1) return String.format(Locale.ROOT, "%.0fms", s * 1000);
        if (s < 60) return String.format(Locale.ROOT, "%.1fs", s);
        if (s % 3600 == 0) return String.format(Locale.ROOT, "%.0fh", s / 3600);
        if (s % 60 == 0) return String.format(Locale.ROOT, "%.0fm", s / 60);
        return String.format(Locale.ROOT, "%.1fm", s / 60);
    }
}
