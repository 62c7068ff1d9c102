package io.acceltriage.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.testing.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code acceltriage eval --llm} through the packaged jar against a scripted model that gets one of
 * two scenarios wrong: each scenario's line and the totals give the model's accuracy, round trips,
 * tokens and seconds beside the rules' own result for the same scenarios.
 */
class EvalWithModelIT {

    private static final List<String> SCENARIOS = List.of("src/test/resources/scenarios/xid79-serving-node.yaml",
            "src/test/resources/scenarios/cuda-oom-finetune.yaml");
    private static final Pattern ROUND_TRIPS = Pattern.compile("(?m)^round trips per incident\\s+(\\d+\\.\\d+) \\(max (\\d+)\\)\\s+0$");
    private static final Pattern INCIDENTS = Pattern.compile("(?m)^incidents\\s+(\\d+)\\s+(\\d+)$");
    private static final Pattern TOKENS_IN = Pattern.compile("(?m)^input tokens per incident\\s+(\\d+)\\s+0$");

    @TempDir
    Path dir;

    @Test
    void evalWithAModelReportsItsAccuracyRoundTripsTokensAndSecondsBesideTheRules() throws Exception {
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(EvalWithModelIT::wrongAboutMemory)) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                    ServiceProcess.JAR.toAbsolutePath().toString(), "eval", "--llm"));
            command.addAll(SCENARIOS);
            ProcessBuilder pb = new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile());
            pb.environment().put("ACCELTRIAGE_DATA_DIR", dir.resolve("data").toString());
            pb.environment().put("ACCELTRIAGE_LLM_BASE_URL", server.baseUrl());
            pb.environment().put("ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL);
            Path out = dir.resolve("eval.out");
            pb.redirectOutput(out.toFile()).redirectError(dir.resolve("eval.err").toFile());
            Process p = pb.start();
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "eval --llm did not exit within 180 s");
            String report = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), report + Files.readString(dir.resolve("eval.err")));
            System.out.println(report); // the report as a user sees it, in the build log

            assertTrue(report.lines().anyMatch(l -> l.matches("\\s+model: family device, proposals right, \\d+ round trips, [1-9]\\d* tokens in,"
                    + " [1-9]\\d* out, \\d+\\.\\d\\d s \\| rules: family device, proposals right, \\d+\\.\\d\\d s")), report);
            assertTrue(report.lines().anyMatch(l -> l.matches("\\s+model: family device \\(wrong\\), .* \\| rules: family application, .*")), report);
            assertTrue(report.lines().anyMatch(l -> l.matches("family accuracy\\s+50\\.0% \\(1/2\\)\\s+100\\.0% \\(2/2\\)")), report);
            assertTrue(report.lines().anyMatch(l -> l.matches("seconds per incident\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d\\d")), report);

            // The figures are the model's wire traffic: every request is a round trip of some incident.
            Matcher incidents = INCIDENTS.matcher(report);
            Matcher trips = ROUND_TRIPS.matcher(report);
            Matcher tokens = TOKENS_IN.matcher(report);
            assertTrue(incidents.find() && trips.find() && tokens.find(), report);
            int n = Integer.parseInt(incidents.group(1));
            assertEquals(server.requests().size(), Math.round(Double.parseDouble(trips.group(1)) * n), report);
            assertTrue(Integer.parseInt(tokens.group(1)) > 0, report);
            // A line, not the last one: the jar's shutdown may log after the report (ObjectiveWatch's tick, left to its owner).
            assertTrue(report.lines().anyMatch(l -> l.equals("2 passed, 0 failed")), "the rules' own verdict: " + report);
        }
    }

    /** The benchmark's well-behaved model, except that it reads every fault as a device fault. */
    private static ScriptedModelServer.Reply wrongAboutMemory(JsonNode request) {
        ScriptedModelServer.Reply r = ModelBenchmarkTest.oracle(request);
        return request.has("tools") ? new ScriptedModelServer.Reply(r.status(), r.body().replace("APPLICATION", "DEVICE"), 0) : r;
    }
}
