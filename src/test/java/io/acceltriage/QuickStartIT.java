package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Json;
import io.acceltriage.testing.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, followed as a newcomer follows it: every {@code curl} line of its
 * "Quick start" section runs through bash, in order, against the packaged jar on its embedded default
 * (sandbox, no tokens configured) with the admin token the service printed. The ids a newcomer copies
 * from a list ({@code RESET=…   # the id … of the reset-gpu gpu-h100-04/1 action}) are looked up the
 * same way: the action of that kind and target. Each call must answer 2xx and have its effect, so the
 * README cannot drift from the service.
 */
class QuickStartIT {

    static final Duration BOUND = Duration.ofSeconds(120);
    static final Pattern TOKEN_PRINTED = Pattern.compile("generated an admin token for this run: ([0-9a-f]{16,})");
    /** {@code NAME=…   # … of the KIND TARGET action …}: the README tells the reader which id to copy. */
    static final Pattern ID_LINE = Pattern.compile("^([A-Z]+)=…\\s+#.*?\\b([a-z]+(?:-[a-z]+)+) (\\S+) action");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path dir;

    /** One step of the quick start: a curl line, or the id of an action the reader copies. */
    record Step(String curl, String variable, String kind, String target) {}

    @Test
    void everyCallOfTheQuickStartWorksWithThePrintedToken() throws Exception {
        List<Step> steps = quickStart(Files.readString(Path.of("README.md"), StandardCharsets.UTF_8));
        List<String> verbs = steps.stream().filter(s -> s.curl() != null).map(s -> s.curl()).toList();
        for (String verb : List.of("/api/v1/sandbox/faults", "/api/v1/incidents", "/approve", "/reject", "/undo",
                "/api/v1/breaker", "/api/v1/breaker/reset")) {
            assertTrue(verbs.stream().anyMatch(c -> c.contains(verb)), "the quick start shows no call of " + verb + ": " + verbs);
        }
        try (ServiceProcess service = ServiceProcess.start(dir, Map.of())) {
            service.awaitReady(Duration.ofMinutes(3));
            String log = Files.readString(dir.resolve("service.log"));
            Matcher printed = TOKEN_PRINTED.matcher(log);
            assertTrue(printed.find(), "the service printed no admin token:\n" + service.logTail());
            String token = printed.group(1);
            assertTrue(log.contains("admin is an approver of this sandbox run"), "the start does not say the admin approves:\n" + log);
            Map<String, String> vars = new HashMap<>(Map.of("TOKEN", token));
            for (Step step : steps) {
                if (step.variable() != null) {
                    vars.put(step.variable(), awaitActionId(service, token, step.kind(), step.target()));
                    continue;
                }
                String body = curl(step.curl(), service, vars);
                checkEffect(step.curl(), body, service, token);
            }
        }
    }

    /** The curl lines and id lines of the README's "## Quick start" section, continuation lines joined. */
    static List<Step> quickStart(String readme) {
        int from = readme.indexOf("\n## Quick start");
        assertTrue(from >= 0, "README.md has no Quick start section");
        int to = readme.indexOf("\n## ", from + 5);
        String section = readme.substring(from, to < 0 ? readme.length() : to);
        List<Step> steps = new ArrayList<>();
        boolean inShell = false;
        StringBuilder pending = null;
        for (String raw : section.split("\n")) {
            String line = raw.strip();
            if (line.startsWith("```")) {
                inShell = !inShell && line.equals("```sh");
                continue;
            }
            if (!inShell) continue;
            if (pending != null) {
                pending.append(' ').append(line.endsWith("\\") ? line.substring(0, line.length() - 1).strip() : line);
                if (!line.endsWith("\\")) {
                    steps.add(new Step(pending.toString(), null, null, null));
                    pending = null;
                }
                continue;
            }
            if (line.startsWith("curl ")) {
                if (line.endsWith("\\")) {
                    pending = new StringBuilder(line.substring(0, line.length() - 1).strip());
                } else {
                    steps.add(new Step(line, null, null, null));
                }
                continue;
            }
            Matcher id = ID_LINE.matcher(line);
            if (id.find()) steps.add(new Step(null, id.group(1), id.group(2), id.group(3)));
        }
        assertFalse(steps.isEmpty(), "no curl lines in the Quick start");
        return steps;
    }

    /** Runs the README's line through bash as written (only the port differs), with its variables set; returns the body. */
    static String curl(String line, ServiceProcess service, Map<String, String> vars) throws Exception {
        String here = service.url("").replace("http://", "");
        String command = line.replace("localhost:8080", here).replaceFirst("\\s+#.*$", "")
                + " -sS --max-time 30 -w '\\n%{http_code}'";
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        pb.environment().putAll(vars);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "curl did not end: " + command);
        assertEquals(0, p.exitValue(), "curl failed: " + command + "\n" + out);
        int cut = out.lastIndexOf('\n');
        int status = Integer.parseInt(out.substring(cut + 1).strip());
        String body = out.substring(0, cut);
        assertTrue(status >= 200 && status < 300, "the README's call answered " + status + ": " + line + "\n" + body
                + "\n" + service.logTail());
        return body;
    }

    /** What the README says each call does, checked against the service. */
    static void checkEffect(String line, String body, ServiceProcess service, String token) {
        Matcher action = Pattern.compile("/api/v1/actions/\\$[A-Z]+/(approve|reject|undo)").matcher(line);
        if (line.contains("/api/v1/sandbox/faults")) {
            String node = Json.read(body, JsonNode.class).path("fault").path("node").asText();
            assertFalse(node.isEmpty(), "the fault names no node: " + body);
            // an incident for the node, triaged (diagnosed, its actions decided)
            service.awaitBody("/api/v1/incidents?node=" + node, token, BOUND,
                    b -> b.contains("\"family\":\"device\"") && !b.contains("\"state\":\"triaging\"") && !b.contains("\"state\":\"new\""));
        } else if (line.contains("/api/v1/actions?status=awaiting_approval")) {
            assertTrue(body.contains("\"status\":\"awaiting_approval\""), "nothing waits for approval: " + body);
        } else if (line.contains("/api/v1/incidents")) {
            assertTrue(Json.read(body, JsonNode.class).path("items").size() > 0, "no incidents listed: " + body);
        } else if (action.find()) {
            String id = Json.read(body, JsonNode.class).path(line.contains("/undo") ? "id" : "action").asText();
            String wanted = Map.of("approve", "succeeded", "reject", "rejected", "undo", "undone").get(action.group(1));
            String seen = service.awaitBody("/api/v1/actions/" + id, token, BOUND, b -> b.contains("\"status\":\"" + wanted + "\""));
            JsonNode a = Json.read(seen, JsonNode.class);
            if (!"reject".equals(action.group(1))) {
                String node = a.path("target").asText().split("/")[0];
                service.awaitBody("/api/v1/sandbox/nodes", token, BOUND, b -> nodeCordoned(b, node) == Boolean.FALSE);
            }
        } else if (line.contains("/api/v1/breaker/reset")) {
            JsonNode r = Json.read(body, JsonNode.class);
            assertTrue(r.path("wasTripped").asBoolean(), "the breaker the quick start resets was not tripped: " + body);
            assertFalse(Json.read(service.get("/api/v1/breaker", token).body(), JsonNode.class).path("tripped").asBoolean());
        } else if (line.contains("/api/v1/breaker")) {
            if (!body.contains("\"tripped\":true")) {
                // the second fault's triage may still be running when the line is read: what it says holds soon after
                service.awaitBody("/api/v1/breaker", token, BOUND, b -> b.contains("\"tripped\":true"));
            }
        }
    }

    static Boolean nodeCordoned(String nodes, String name) {
        for (JsonNode n : Json.read(nodes, JsonNode.class)) {
            if (name.equals(n.path("name").asText())) return n.path("cordoned").asBoolean();
        }
        return null;
    }

    /** The id a reader copies: the action of that kind and target, once it is there. */
    static String awaitActionId(ServiceProcess service, String token, String kind, String target) {
        String[] id = {null};
        service.await(kind + " " + target + " in /api/v1/actions", BOUND, () -> {
            for (JsonNode a : Json.read(service.get("/api/v1/actions", token).body(), JsonNode.class).path("items")) {
                if (kind.equals(a.path("kind").asText()) && target.equals(a.path("target").asText())) {
                    id[0] = a.path("id").asText();
                    return true;
                }
            }
            return false;
        });
        return id[0];
    }
}
