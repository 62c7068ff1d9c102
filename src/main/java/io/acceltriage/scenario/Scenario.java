package io.acceltriage.scenario;

import java.util.List;
import java.util.Map;

/**
 * A replayable incident, format version 1 ({@code docs/SCENARIO-FORMAT.md}). Unknown fields are
 * an error except under metadata.annotations; later versions only add optional fields.
 */
public record Scenario(String apiVersion, String kind, Metadata metadata, Spec spec) {

    public record Metadata(String name, String description, Map<String, Object> annotations) {}

    /**
     * {@code history} (optional): fatal XIDs the GPUs had before this incident, as the fault history would hold them;
     * {@code validation} (optional): the last validation of a node, as validate-node left it on the node.
     */
    public record Spec(Map<String, Object> alert, List<Map<String, Object>> alerts, String ask,
            List<Map<String, Object>> objects, Map<String, String> logs, Metrics metrics, String policy, Expect expect,
            List<PastFault> history, Validation validation) {

        public Spec(Map<String, Object> alert, List<Map<String, Object>> alerts, String ask, List<Map<String, Object>> objects,
                Map<String, String> logs, Metrics metrics, String policy, Expect expect, List<PastFault> history) {
            this(alert, alerts, ask, objects, logs, metrics, policy, expect, history, null);
        }

        public Spec(Map<String, Object> alert, List<Map<String, Object>> alerts, String ask, List<Map<String, Object>> objects,
                Map<String, String> logs, Metrics metrics, String policy, Expect expect) {
            this(alert, alerts, ask, objects, logs, metrics, policy, expect, null);
        }
    }

    /**
     * A fatal XID a GPU ({@code node}, {@code gpu} index) had {@code ago} (a duration such as {@code 3h}) before the
     * replay, in incident {@code incident} (optional): what the repeat-offender rule counts.
     */
    public record PastFault(String node, String gpu, Integer xid, String ago, String incident) {}

    /**
     * The last validation of {@code node} before the incident: {@code diag} is what {@code dcgmi diag -j} printed (its JSON
     * as a mapping); replay marks the node passed or failed with DCGM's words, as validate-node does.
     */
    public record Validation(String node, Map<String, Object> diag) {}

    public record Metrics(String now, String tenMinutesAgo) {}

    /**
     * {@code atCheckpoint} (optional): entries that must be proposed to run at the gang's next checkpoint;
     * {@code workLost} (optional): per gang ({@code namespace/name}) the GPU-hours a restart now would lose, ±0.1;
     * {@code refused} (optional): entries that must be proposed and denied by the policy, each with words its refusal
     * (what the person is told) must contain ({@code ""}: any).
     */
    public record Expect(String family, List<String> actions, List<String> forbidden, Boolean escalate, List<String> atCheckpoint,
            Map<String, Double> workLost, Map<String, String> refused) {

        public Expect(String family, List<String> actions, List<String> forbidden, Boolean escalate, List<String> atCheckpoint,
                Map<String, Double> workLost) {
            this(family, actions, forbidden, escalate, atCheckpoint, workLost, null);
        }
    }

    public String name() {
        return metadata.name();
    }
}
