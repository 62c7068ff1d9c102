package io.acceltriage;

import io.acceltriage.policy.Policy;
import io.acceltriage.scenario.Capture;
import io.acceltriage.scenario.ModelScore;
import io.acceltriage.scenario.Replay;
import io.acceltriage.scenario.ReplayResult;
import io.acceltriage.scenario.Scenario;
import io.acceltriage.scenario.ScenarioLoader;
import io.acceltriage.triage.ResponderFactory;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;

@Dependent
@io.quarkus.arc.Unremovable
@CommandLine.Command(name = "eval", mixinStandardHelpOptions = true, description = "Replay scenarios offline and compare with what they expect.")
class EvalCommand implements Callable<Integer> {

    @CommandLine.Parameters(arity = "1..*", paramLabel = "PATH", description = "scenario files or folders")
    List<Path> paths;

    @CommandLine.Option(names = "--policy", description = "replay under this policy file instead of each scenario's")
    Path policyFile;

    @CommandLine.Option(names = "--verbose", description = "print each scenario's proposals")
    boolean verbose;

    @CommandLine.Option(names = "--llm", description = "also replay through the configured model (ACCELTRIAGE_LLM_*) and report its accuracy, round trips, tokens and seconds per incident beside the rules'")
    boolean llm;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Inject
    ResponderFactory factory;

    @Inject
    Policy defaultPolicy;

    /** A long replay says how far it is every this many scenarios. */
    private static final int PROGRESS_EVERY = 10;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Policy override = policyFile == null ? null : Policy.parse(policyFile.toString(), Files.readAllBytes(policyFile));
        Replay replay = new Replay(factory, defaultPolicy);
        Replay modelReplay = null;
        ModelScore score = new ModelScore();
        if (llm) {
            if (!factory.models().configured()) {
                spec.commandLine().getErr().println("eval --llm needs a model: set ACCELTRIAGE_LLM_BASE_URL, ACCELTRIAGE_LLM_API_KEY and ACCELTRIAGE_LLM_MODEL");
                return 2;
            }
            modelReplay = new Replay(factory, defaultPolicy, factory.models().agent().orElseThrow());
        }
        int passed = 0;
        int failed = 0;
        // Expected family → [scenarios, passed, family wrong, proposals wrong], for the table at the end.
        java.util.Map<String, int[]> byFamily = new java.util.TreeMap<>();
        int familyRight = 0;
        int proposalsRight = 0;
        List<Path> files;
        try {
            files = ScenarioLoader.expand(paths);
        } catch (java.io.IOException e) {
            spec.commandLine().getErr().println("eval: " + e.getMessage());
            return 2;
        }
        long started = System.nanoTime();
        int done = 0;
        for (Path file : files) {
            // Progress on standard error, so the PASS/FAIL lines on standard output stay the report.
            if (files.size() > PROGRESS_EVERY && done > 0 && done % PROGRESS_EVERY == 0) {
                spec.commandLine().getErr().printf("eval: %d/%d replayed (%.0f s)%n", done, files.size(),
                        (System.nanoTime() - started) / 1e9);
                spec.commandLine().getErr().flush();
            }
            done++;
            ReplayResult r;
            ModelScore.Run rules;
            try {
                if (new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8).contains(Capture.PLACEHOLDER)) {
                    // capture's expectation is a guess ("none") that would pass or fail by chance, never a judgement
                    out.println("FAIL " + file.getFileName() + ": its expectation is still capture's placeholder; fill in spec.expect"
                            + " (the family and the actions a good first responder takes, docs/SCENARIO-FORMAT.md) and delete the line \""
                            + Capture.PLACEHOLDER + "\"");
                    failed++;
                    continue;
                }
                Scenario s = ScenarioLoader.load(file);
                long t0 = System.nanoTime();
                Replay.Outcome o = replay.replay(file, s, override);
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                r = replay.judge(s, o);
                rules = new ModelScore.Run(o, r, took);
            } catch (RuntimeException | java.io.IOException e) {
                out.println("FAIL " + file.getFileName() + ": " + e.getMessage());
                failed++;
                continue;
            }
            if (r.familyRight()) familyRight++;
            if (r.proposalsRight()) proposalsRight++;
            int[] row = byFamily.computeIfAbsent(String.valueOf(r.expectedFamily()).toLowerCase(java.util.Locale.ROOT), k -> new int[4]);
            row[0]++;
            if (r.passed()) row[1]++;
            if (!r.familyRight()) row[2]++;
            if (!r.proposalsRight()) row[3]++;
            if (r.passed()) {
                passed++;
                out.println("PASS " + r.name());
            } else {
                failed++;
                out.println("FAIL " + r.name() + ": " + String.join("; ", r.problems()));
            }
            if (modelReplay != null) {
                try {
                    Scenario s = ScenarioLoader.load(file);
                    long t0 = System.nanoTime();
                    Replay.Outcome o = modelReplay.replay(file, s, override);
                    Duration took = Duration.ofNanos(System.nanoTime() - t0);
                    out.println("     " + score.add(s.spec().expect().family(), new ModelScore.Run(o, modelReplay.judge(s, o), took), rules));
                } catch (RuntimeException e) {
                    out.println("     model replay failed: " + e.getMessage());
                }
            }
            if (verbose) {
                out.println("     family " + r.family() + ", proposals " + r.proposals());
                r.explanation().forEach(line -> out.println("     " + line));
            }
        }
        int total = passed + failed;
        if (total > 0) {
            out.printf((llm ? "rules: " : "") + "family accuracy %.1f%% (%d/%d), proposal accuracy %.1f%% (%d/%d)%n",
                    100.0 * familyRight / total, familyRight, total, 100.0 * proposalsRight / total, proposalsRight, total);
        }
        if (byFamily.size() > 1) {
            // Where the misses are: per expected family, how many passed and what went wrong.
            out.printf("%-15s %6s %6s %13s %16s%n", "expected", "total", "passed", "family wrong", "proposals wrong");
            byFamily.forEach((family, c) -> out.printf("%-15s %6d %6d %13d %16d%n", family, c[0], c[1], c[2], c[3]));
        }
        if (modelReplay != null) score.report(out, factory.models().label());
        out.println(passed + " passed, " + failed + " failed");
        out.flush();
        return failed == 0 && total > 0 ? 0 : 1;
    }
}
