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
@CommandLine.Command(name = "audit", mixinStandardHelpOptions = true, description = "Verify, export or prune the hash-chained audit log.",
        subcommands = {AuditCommand.Verify.class, AuditCommand.Export.class, AuditCommand.Prune.class})
class AuditCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Dependent
    @io.quarkus.arc.Unremovable
    @CommandLine.Command(name = "verify", mixinStandardHelpOptions = true, description = "Walk the chain; exit 1 naming the first changed, removed or inserted record.")
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
                out.println("audit log intact: " + v.records() + " records"
                    + (v.prunedThrough() == null ? "" : " (records up to " + v.prunedThrough() + " were pruned; the chain starts after them)"));
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
    @CommandLine.Command(name = "export", mixinStandardHelpOptions = true, description = "Write every record as JSON Lines (to a file or standard output).")
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

    @Dependent
    @io.quarkus.arc.Unremovable
    @CommandLine.Command(name = "prune", mixinStandardHelpOptions = true, description = {
            "Retention: delete the records written before a date, keeping the rest verifiable.",
            "Writes an audit.pruned checkpoint record (who, the cut-off, the last deleted record's number and hash),"
                    + " then deletes the older records in the same transaction. `audit verify` starts from the latest"
                    + " checkpoint. Refuses to prune a chain that does not verify. Export first if the records must be kept"
                    + " elsewhere: audit export -o audit-until-DATE.jsonl"})
    static class Prune implements Callable<Integer> {
        @Inject
        io.acceltriage.audit.AuditPruner pruner;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--before", required = true,
                description = "delete records written before this date (2026-01-31) or time (2026-01-31T12:00:00Z), UTC")
        String before;

        @CommandLine.Option(names = "--by", description = "who prunes, as the checkpoint records it (default: operator:<login name>)")
        String by;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            java.time.Instant cut;
            try {
                cut = before.contains("T") ? java.time.Instant.parse(before)
                        : java.time.LocalDate.parse(before).atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
            } catch (java.time.format.DateTimeParseException e) {
                out.println("--before must be a date such as 2026-01-31 or a time such as 2026-01-31T12:00:00Z; got '" + before + "'");
                out.flush();
                return 2;
            }
            String actor = by == null || by.isBlank() ? "operator:" + System.getProperty("user.name", "unknown") : by;
            try {
                io.acceltriage.audit.AuditPruner.Pruned p = pruner.prune(cut, actor);
                out.println(p.deleted() == 0 ? "nothing to prune: no record was written before " + cut
                        : "pruned " + p.deleted() + " records (up to " + p.throughSeq() + "); checkpoint is record " + p.checkpointSeq());
                out.flush();
                return 0;
            } catch (IllegalArgumentException | IllegalStateException e) {
                out.println(e.getMessage());
                out.flush();
                return 1;
            }
        }
    }
}
