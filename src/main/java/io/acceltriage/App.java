package io.acceltriage;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import picocli.CommandLine;

/**
 * The entry point: {@code serve} (the default) runs the service; {@code eval}, {@code audit} and the
 * other tools run offline and exit. The tools never open the HTTP port and never process alerts, so
 * they can run beside a live service.
 */
@QuarkusMain
public class App implements QuarkusApplication {

    @Inject
    CommandLine.IFactory factory;

    public static void main(String... args) {
        String command = args.length == 0 || args[0].startsWith("-") ? "serve" : args[0];
        if (!"serve".equals(command)) {
            System.setProperty("quarkus.http.host-enabled", "false");
            System.setProperty("acceltriage.processing.enabled", "false");
            System.setProperty("quarkus.log.level", "WARN");
            System.setProperty("quarkus.log.category.\"io.acceltriage\".level", "WARN");
        }
        Quarkus.run(App.class, args);
    }

    @Override
    public int run(String... args) {
        return new CommandLine(new Commands(), factory).execute(args.length == 0 ? new String[] {"serve"} : args);
    }

    @CommandLine.Command(name = "acceltriage", mixinStandardHelpOptions = true, version = "acceltriage 0.1.0",
            description = "First responder for GPU and TPU incidents on Kubernetes.",
            subcommands = {ServeCommand.class, EvalCommand.class, AuditCommand.class, CaptureCommand.class})
    static class Commands {}
}
