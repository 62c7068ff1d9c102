package io.acceltriage.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Json;
import io.acceltriage.testing.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The policy's drill schedule inside the running packaged service: with two drills scheduled (the
 * shortest interval the policy allows) and the leader looking every second, both run on their own —
 * no request, no command — and their results are recorded ({@code drill.finished}, by "schedule"); the
 * XID 79 drill, held to a mitigation objective no responder can meet (1 ms), fails and is told to
 * people ({@code drill_failed}), the device-plugin drill passes.
 */
class ScheduledDrillIT {

    static final String VIEWER = "drill-viewer-token-0123456789";

    @Test
    void scheduledDrillsRunInTheServiceAndAFailedOneIsTold(@TempDir Path dir) throws Exception {
        String policy = Files.readString(Path.of("policies/default.yaml"));
        String impossible = policy.replaceFirst("(name: device-mitigated,[^}]*within: )2m", "$11ms");
        assertTrue(!impossible.equals(policy), "the shipped policy has the device-mitigated objective");
        impossible += "\ndrills:\n  - {name: xid79-training-node, every: 10m}\n  - {name: device-plugin, every: 10m}\n";
        Path file = dir.resolve("scheduled.yaml");
        Files.writeString(file, impossible);
        Map<String, String> env = Map.of("ACCELTRIAGE_POLICY_FILE", file.toString(), "ACCELTRIAGE_DRILLS_CHECK_EVERY", "1s",
                "ACCELTRIAGE_ACCESS_TOKENS", "watcher:viewer:" + VIEWER);
        try (ServiceProcess s = ServiceProcess.start(dir, env).awaitReady(Duration.ofSeconds(120))) {
            // The schedule's first look comes 30 s after the start; each drill then takes seconds.
            String body = s.awaitBody("/api/v1/drills", VIEWER, Duration.ofSeconds(150), b -> results(b).size() >= 2);
            List<JsonNode> results = results(body);
            JsonNode xid = results.stream().filter(r -> r.path("drill").asText().equals("xid79-training-node")).findFirst().orElseThrow();
            JsonNode plugin = results.stream().filter(r -> r.path("drill").asText().equals("device-plugin")).findFirst().orElseThrow();
            assertEquals("schedule", xid.path("by").asText(), "run by the schedule, not a person: " + xid);
            assertEquals("schedule", plugin.path("by").asText());
            assertTrue(!xid.path("passed").asBoolean() && xid.path("problem").asText().startsWith("mitigate took"), xid.toString());
            assertTrue(plugin.path("passed").asBoolean(), plugin.toString());

            String incident = xid.path("incidentId").asText();
            String told = s.get("/api/v1/audit?kind=notification&incident=" + incident, VIEWER).body();
            assertTrue(told.contains("\"event\":\"drill_failed\""), "the failed drill is told through notify: " + told);
            String finished = s.get("/api/v1/audit?kind=drill.finished", VIEWER).body();
            assertEquals(2, Json.MAPPER.readTree(finished).path("items").size(), "each drill once within its interval: " + finished);
        }
    }

    private static List<JsonNode> results(String body) {
        List<JsonNode> out = new ArrayList<>();
        try {
            Json.MAPPER.readTree(body).path("items").forEach(out::add);
        } catch (Exception e) {
            return List.of();
        }
        return out;
    }
}
