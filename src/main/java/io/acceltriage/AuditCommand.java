package io.acceltriage;

import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditVerifier;
import io.acceltriage.audit.ChainVerdict;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "audit", description = "Verify or export the hash-chained audit log.",
        subcommands = {AuditCommand.Verify.class, AuditCommand.Export.class})
class AuditCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Dependent
    @io.quarkus.arc.Unremovable
    @CommandLine.Command(name = "verify", description = "Walk the chain; exit 1 naming the first changed, removed or inserted record.")
    static class Verify implements Callable<Integer> {
        @Inject
        AuditVerifier verifier;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            ChainVerdict v = verifier.verify();
            PrintWriter out = spec.commandLine().getOut();
            if (v.intact()) {
                out.println("audit log intact: " + v.records() + " records");
                out.flush();
                return 0;
            }
            out.println("audit log BROKEN at record " + v.brokenAt() + ": " + v.problem());
            out.flush();
            return 1;
        }
    }

    @Dependent
    @io.quarkus.arc.Unremovable
    @CommandLine.Command(name = "export", description = "Write every record as JSON Lines (to a file or standard output).")
    static class Export implements Callable<Integer> {
        @Inject
        AuditReader reader;

        @CommandLine.Option(names = {"-o", "--output"}, description = "file to write (default: standard output)")
        Path output;

        @Override
        public Integer call() throws Exception {
            try (Writer w = output == null ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
                    : Files.newBufferedWriter(output)) {
                reader.forEach(r -> {
                    try {
                        w.write(Json.write(r));
                        w.write('\n');
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
            return 0;
        }
    }
}
