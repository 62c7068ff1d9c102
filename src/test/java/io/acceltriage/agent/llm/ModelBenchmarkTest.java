package io.acceltriage.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.config.Secret;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.policy.Policy;
import io.acceltriage.scenario.ModelScore;
import io.acceltriage.scenario.Replay;
import io.acceltriage.scenario.Scenario;
import io.acceltriage.scenario.ScenarioLoader;
import io.acceltriage.testing.ServerProcess;
import io.acceltriage.triage.ResponderFactory;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark, not part of the default run: replays the whole corpus through the model path against a
 * scripted OpenAI-compatible server and reports round trips and tokens per incident. The scripted
 * model behaves as the prompt asks: it concludes in one turn with the bundle's candidate actions as
 * its proposals, then summarises — so the numbers measure the agent's protocol (the findings' evidence
 * first, the rest by id), not a model's intelligence. Its family is a keyword heuristic.
 *
 * <pre>./mvnw -o test -Dtest=ModelBenchmarkTest -Dacceltriage.benchmark=true -Dsurefire.excludedGroups=</pre>
 *
 * <p>Two passes: without Prometheus (the declarative tools could only repeat the bundle, so none is
 * offered), and with a real Prometheus configured, every investigation offered the Prometheus tools
 * and reading one of them first.
 */
@QuarkusTest
@Tag("benchmark")
@EnabledIfSystemProperty(named = "acceltriage.benchmark", matches = "true")
class ModelBenchmarkTest {

    private static final Pattern CANDIDATE = Pattern.compile("(?m)^- ([a-z-]+) (\\S+)$");
    private static final Pattern EVIDENCE_ID = Pattern.compile("(?m)^(E\\d+) ");
    private static final Pattern NODE_TOOL = Pattern.compile("Tools taking node:\\n([a-z0-9_]+):");
    private static final Pattern NODE = Pattern.compile("Node: ([a-z0-9][a-z0-9.-]*)");

    @Inject
    ResponderFactory factory;

    @Inject
    Policy policy;

    @Inject
    ModelMode mode;

    @Test
    void roundTripsAndTokensPerIncidentOverTheCorpus() throws Exception {
        ModelScore score = pass(null, ModelBenchmarkTest::oracle, "");
        assertTrue(score.tokensInPerIncident() <= 4_000, "at most 4,000 input tokens per incident (issue #16), saw "
                + Math.round(score.tokensInPerIncident()));
    }

    /**
     * The same corpus with a real Prometheus configured: every investigation is offered the Prometheus
     * tools that fit it, and where the message says sources disagree (the prompt asks the model to
     * settle which is right) the scripted model reads one of them (the first node tool, on the
     * incident's node) before it concludes; elsewhere it answers in one turn, as the prompt asks.
     * Prometheus scrapes nothing here, so a tool answers "0 series": the figure is the protocol's.
     */
    @Test
    void roundTripsAndTokensPerIncidentWithThePrometheusToolsOfferedAndRead() throws Exception {
        ServerProcess.requireBinary("/usr/bin/prometheus", "prometheus");
        Path dir = ServerProcess.tempDir("benchmark-prometheus");
        java.nio.file.Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: 15s\n");
        int port = ServerProcess.freePort();
        String url = "http://127.0.0.1:" + port;
        try (ServerProcess prometheus = ServerProcess.start("prometheus", dir, List.of("/usr/bin/prometheus",
                "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn"))) {
            prometheus.await("Prometheus ready", Duration.ofSeconds(60), () -> ServerProcess.get(url + "/-/ready") != null);
            PrometheusSource source = new PrometheusSource(URI.create(url), Duration.ofSeconds(5), Duration.ofMinutes(10));
            ModelScore score = pass(source, ModelBenchmarkTest::readsPrometheusFirst, " with Prometheus tools offered");
            assertTrue(score.tokensInPerIncident() <= 4_000, "at most 4,000 input tokens per incident with the Prometheus tools"
                    + " offered (issue #16), saw " + Math.round(score.tokensInPerIncident()));
        }
    }

    /** One replay of the corpus against {@code model}; the Prometheus tools read {@code prometheus} (null: none offered). */
    private ModelScore pass(PrometheusSource prometheus, Function<JsonNode, ScriptedModelServer.Reply> model, String label) throws Exception {
        try (ScriptedModelServer server = new ScriptedModelServer()) {
            server.otherwise(model);
            LlmSettings settings = new LlmSettings(server.baseUrl(), Secret.of("unused"), ScriptedModelServer.MODEL,
                    Duration.ofSeconds(10), 0, true, 8, 60_000, Duration.ofSeconds(60));
            ModelScore score = new ModelScore();
            PrintWriter out = new PrintWriter(System.out, true);
            for (Path f : ScenarioLoader.expand(List.of(Path.of("src/test/resources/scenarios")))) {
                String only = System.getProperty("acceltriage.benchmark.only", "");
                if (!only.isEmpty() && java.util.Arrays.stream(only.split(",")).noneMatch(o -> f.getFileName().toString().startsWith(o))) continue;
                Scenario s = ScenarioLoader.load(f);
                Replay replay = new Replay(factory, policy, mode.agentFor(settings, prometheus));
                long started = System.nanoTime();
                Replay.Outcome o = replay.replay(f, s, null);
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                out.println(s.name() + ": " + score.add(s.spec().expect().family(), new ModelScore.Run(o, replay.judge(s, o), took), null));
            }
            score.report(out, ScriptedModelServer.MODEL + " (scripted)" + label);
            String dump = System.getProperty("acceltriage.benchmark.dump"); // a file to read every request in full
            if (dump != null) java.nio.file.Files.writeString(Path.of(dump + (prometheus == null ? "" : ".prometheus")), server.requests().toString());
            out.println("input per incident by part (characters / 4)" + label + ": " + whereTheInputGoes(server.requests(), score.incidents()));
            assertEquals(0, score.fallbacks(), "no run may fall back against a well-behaved model");
            assertTrue(score.maxRoundTrips() <= 3, "at most three round trips per incident, saw " + score.maxRoundTrips());
            return score;
        }
    }

    /**
     * The oracle, reading Prometheus where sources disagree: its first investigation turn calls
     * prometheus_query with the first node tool offered, on the incident's node (a fleet incident has
     * none: it concludes at once).
     */
    static ScriptedModelServer.Reply readsPrometheusFirst(JsonNode request) {
        boolean toolAnswered = false;
        for (JsonNode m : request.path("messages")) toolAnswered |= m.path("role").asText().equals("tool");
        String description = "";
        for (JsonNode t : request.path("tools")) {
            if (t.path("function").path("name").asText().equals(PrometheusTools.NAME)) description = t.path("function").path("description").asText();
        }
        Matcher nodeTool = NODE_TOOL.matcher(description);
        Matcher node = NODE.matcher(request.path("messages").toString());
        boolean disagree = request.path("messages").toString().contains("Sources disagree: ");
        if (toolAnswered || !disagree || !nodeTool.find() || !node.find() || node.group(1).equals("unknown")) return oracle(request);
        return ScriptedModelServer.toolCalls(List.of(Map.entry(PrometheusTools.NAME,
                "{\"tool\":\"" + nodeTool.group(1) + "\",\"node\":\"" + node.group(1) + "\"}")));
    }

    /** Where the input tokens go, so a cut can be aimed: the request's parts, summed over every request. */
    static Map<String, Long> whereTheInputGoes(List<JsonNode> requests, int incidents) {
        Map<String, Long> parts = new java.util.TreeMap<>();
        for (JsonNode r : requests) {
            r.fields().forEachRemaining(f -> {
                if (f.getKey().equals("messages")) {
                    f.getValue().forEach(m -> parts.merge("messages." + m.path("role").asText(), (long) m.toString().length(), Long::sum));
                } else {
                    parts.merge(f.getKey(), (long) f.getValue().toString().length(), Long::sum);
                }
            });
        }
        parts.replaceAll((k, v) -> v / 4 / Math.max(1, incidents));
        return parts;
    }

    /** A well-behaved scripted model: conclude with the candidates as proposals, then summarise. */
    static ScriptedModelServer.Reply oracle(JsonNode request) {
        JsonNode messages = request.path("messages");
        String system = "";
        String user = "";
        for (JsonNode m : messages) {
            if (m.path("role").asText().equals("system") && system.isEmpty()) system = m.path("content").asText();
            if (m.path("role").asText().equals("user") && user.isEmpty()) user = m.path("content").asText();
        }
        Matcher ids = EVIDENCE_ID.matcher(user);
        List<String> cited = ids.find() ? List.of(ids.group(1)) : List.of();
        if (system.contains("scribe")) {
            String text = cited.isEmpty() ? "No evidence was gathered." : "See the evidence [" + cited.get(0) + "].";
            return ScriptedModelServer.answer(Map.of("text", text, "evidenceIds", cited));
        }
        // As the prompt asks: one turn, the candidate actions it wants in its proposals.
        List<Map<String, String>> proposals = new ArrayList<>();
        Matcher c = CANDIDATE.matcher(user.substring(0, Math.max(0, user.indexOf("Evidence bundle:"))));
        while (c.find()) proposals.add(Map.of("kind", c.group(1), "target", c.group(2), "reason", "candidate"));
        return ScriptedModelServer.answer(Map.of("family", family(user), "cause", "scripted", "evidenceIds", cited, "proposals", proposals));
    }

    private static String family(String bundle) {
        String b = bundle.toLowerCase();
        if (anyOf(b, "out of memory", "oomkilled", "traceback", "device-side assert", "config")) return "APPLICATION";
        if (anyOf(b, "xid", "ecc", "fallen off", "unhealthy", "nvlink", "remap", "retired")) return "DEVICE";
        if (anyOf(b, "notready", "device plugin", "device-plugin", "nvml", "runtime")) return "INFRASTRUCTURE";
        return "NONE";
    }

    private static boolean anyOf(String text, String... words) {
        for (String w : words) {
            if (text.contains(w)) return true;
        }
        return false;
    }
}
