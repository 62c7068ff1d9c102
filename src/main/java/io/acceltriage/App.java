package io.acceltriage;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import picocli.CommandLine;

/**
 * The entry point: {@code serve} (the default) runs the service; {@code eval}, {@code audit} and the
 * other tools run offline and exit. The tools never open the HTTP port and never process alerts, so
 * they can run beside a live service; {@code drill} alone runs the pipeline, on its own sandbox and on loopback.
 */
@QuarkusMain
public class App implements QuarkusApplication {

    @Inject
    CommandLine.IFactory factory;

    public static void main(String... args) {
        if (asksForHelp(args)) {
            // Usage needs no service: answered before Quarkus starts, so nothing opens a port or a store.
            System.exit(new CommandLine(new Commands()).execute(args));
        }
        String command = args.length == 0 || args[0].startsWith("-") ? "serve" : args[0];
        if ("serve".equals(command)) {
            String problem = preflight();
            if (problem != null) {
                System.err.println("acceltriage: " + problem);
                System.exit(2);
            }
        }
        if ("drill".equals(command)) {
            // A drill needs the running pipeline (triage, actions) and the sandbox's exporters, served over
            // HTTP: on loopback at a free port, beside any service; never the schedule, which would drill again.
            System.setProperty("quarkus.http.host", "127.0.0.1");
            System.setProperty("quarkus.http.port", "0");
            System.setProperty("acceltriage.drills.check-every", "off");
            System.setProperty("acceltriage.objectives.check-every", "off");
            // The admin token generated for this run's loopback port is of no use to anyone: not printed.
            System.setProperty("quarkus.log.category.\"io.acceltriage.access\".level", "ERROR");
        } else if ("sandbox".equals(command)) {
            // The simulated cluster alone, for replicas (or kubectl) elsewhere to share through its kubeconfig: no
            // pipeline (processing would triage and act on the shared cluster beside the replicas), loopback only.
            System.setProperty("quarkus.http.host", "127.0.0.1");
            System.setProperty("acceltriage.cluster.mode", "sandbox");
            System.setProperty("acceltriage.processing.enabled", "false");
            System.setProperty("acceltriage.sandbox.serve-only", "true");
            System.setProperty("acceltriage.drills.check-every", "off");
            System.setProperty("acceltriage.objectives.check-every", "off");
        } else if (!"serve".equals(command)) {
            System.setProperty("quarkus.http.host-enabled", "false");
            System.setProperty("acceltriage.processing.enabled", "false");
            // nothing periodic belongs to a one-shot command: a tick due after it finished found the container gone
            // and printed an error after the command's own last line
            System.setProperty("quarkus.scheduler.enabled", "false");
        }
        if (!"serve".equals(command) && !"sandbox".equals(command)) {
            System.setProperty("quarkus.log.level", "WARN");
            System.setProperty("quarkus.log.category.\"io.acceltriage\".level", "WARN");
            // a loaded machine slows a one-shot command's cold start; the event loop's complaints about it are not the answer
            System.setProperty("quarkus.log.category.\"io.vertx.core.impl.BlockedThreadChecker\".level", "ERROR");
        }
        Quarkus.run(App.class, args);
    }

    /**
     * The operator's own files, checked before anything starts: a typo is one line naming the file,
     * the line and the reason, and no port is opened. Null when they are fine (or absent: the service
     * then warns and uses the bundled copies).
     */
    static String preflight() {
        String policy = setting("acceltriage.policy.file", "ACCELTRIAGE_POLICY_FILE", "policies/default.yaml");
        String tools = setting("acceltriage.tools.dir", "ACCELTRIAGE_TOOLS_DIR", "tools");
        try {
            if (java.nio.file.Files.isRegularFile(java.nio.file.Path.of(policy))) io.acceltriage.policy.Policy.load(policy);
            if (java.nio.file.Files.isDirectory(java.nio.file.Path.of(tools))) io.acceltriage.evidence.Toolsets.load(tools);
            return null;
        } catch (io.acceltriage.config.DataFiles.InvalidDataFile | IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** A setting as Quarkus would read it here: system property, then environment variable, then the default. */
    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(env);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** {@code help [command]}, or {@code -h}/{@code --help}/{@code -V}/{@code --version} anywhere before a {@code --}. */
    static boolean asksForHelp(String... args) {
        if (args.length > 0 && "help".equals(args[0])) return true;
        for (String a : args) {
            if ("--".equals(a)) return false;
            if ("-h".equals(a) || "--help".equals(a) || "-V".equals(a) || "--version".equals(a)) return true;
        }
        return false;
    }

    @Override
    public int run(String... args) {
        return new CommandLine(new Commands(), factory).execute(args.length == 0 ? new String[] {"serve"} : args);
    }

    @CommandLine.Command(name = "acceltriage", mixinStandardHelpOptions = true, version = "acceltriage 0.1.0",
            description = "First responder for GPU and TPU incidents on Kubernetes.",
            subcommands = {ServeCommand.class, EvalCommand.class, AuditCommand.class, CaptureCommand.class, InvestigateCommand.class, DrillCommand.class,
                    SandboxCommand.class,
                    CommandLine.HelpCommand.class})
    static class Commands {}
}
