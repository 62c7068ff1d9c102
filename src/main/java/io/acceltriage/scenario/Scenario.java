package io.acceltriage.scenario;

import java.util.List;
import java.util.Map;

/**
 * A replayable incident, format version 1 ({@code docs/SCENARIO-FORMAT.md}). Unknown fields are
 * an error except under metadata.annotations; later versions only add optional fields.
 */
public record Scenario(String apiVersion, String kind, Metadata metadata, Spec spec) {

    public record Metadata(String name, String description, Map<String, Object> annotations) {}

    public record Spec(Map<String, Object> alert, List<Map<String, Object>> alerts, String ask,
            List<Map<String, Object>> objects, Map<String, String> logs, Metrics metrics, String policy, Expect expect) {}

    public record Metrics(String now, String tenMinutesAgo) {}

    public record Expect(String family, List<String> actions, List<String> forbidden, Boolean escalate) {}

    public String name() {
        return metadata.name();
    }
}
