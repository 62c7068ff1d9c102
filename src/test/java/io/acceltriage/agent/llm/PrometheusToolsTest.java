package io.acceltriage.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Toolset;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.testing.ServerProcess;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one dispatcher the model reads Prometheus through: the offered queries as an enum with a line
 * each, and every call checked against the chosen query's own parameters before anything is sent. The
 * Prometheus here listens nowhere: a call that got as far as sending would fail with an error, not
 * the IllegalArgumentException (a refusal) asserted.
 */
class PrometheusToolsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final PrometheusSource nowhere = new PrometheusSource(URI.create("http://127.0.0.1:" + ServerProcess.freePort()),
            Duration.ofSeconds(1), Duration.ofMinutes(10));

    private static List<Map.Entry<Toolset, Toolset.Tool>> offered(String... toolsets) {
        List<Map.Entry<Toolset, Toolset.Tool>> out = new ArrayList<>();
        for (Toolset ts : Toolsets.load("tools").all()) {
            if (List.of(toolsets).contains(ts.name())) ts.tools().forEach(t -> out.add(Map.entry(ts, t)));
        }
        return out;
    }

    @Test
    void theOfferedQueriesAreOneToolWithTheirNamesAsAnEnumAndTheirParametersOnce() {
        AgentTool tool = PrometheusTools.of(offered("dcgm", "training"), nowhere);
        assertEquals(PrometheusTools.NAME, tool.spec().name());
        JsonObjectSchema params = tool.spec().parameters();
        List<String> names = ((JsonEnumSchema) params.properties().get("tool")).enumValues();
        assertTrue(names.containsAll(List.of("gpu_xid_errors", "gpu_ecc_dbe_volatile", "training_last_checkpoint")), names.toString());
        assertFalse(names.contains("vllm_request_latency_p90"), "only what was offered: " + names);
        assertEquals(List.of("tool", "node", "namespace"), List.copyOf(params.properties().keySet()));
        assertEquals(List.of("tool"), params.required());
        String description = tool.spec().description();
        assertTrue(description.contains("\ngpu_xid_errors: The last XID error code of each GPU of a node (0 = none)."), description);
        assertTrue(description.contains("Tools taking namespace (the workload serves these: a tenant source):\ntraining_step_time:"), description);
        assertTrue(PrometheusTools.of(List.of(), nowhere) == null, "no queries fit: no tool offered");
    }

    @Test
    void aCallOutsideTheChosenQuerysParametersIsRefusedBeforeAnythingIsSent() throws Exception {
        AgentTool tool = PrometheusTools.of(offered("dcgm", "training"), nowhere);
        Map<String, String> refusals = Map.of(
                "{\"node\":\"gpu-h100-08\"}", "prometheus_query needs tool, one of gpu_xid_errors",
                "{\"tool\":\"node_exec\",\"node\":\"gpu-h100-08\"}", "'node_exec' is not one of this incident's Prometheus tools",
                "{\"tool\":\"gpu_xid_errors\",\"node\":\"gpu-h100-08\",\"query\":\"up\"}", "'query' is not a parameter of gpu_xid_errors",
                "{\"tool\":\"gpu_xid_errors\",\"namespace\":\"training\"}", "'namespace' is not a parameter of gpu_xid_errors",
                "{\"tool\":\"gpu_xid_errors\"}", "gpu_xid_errors needs node",
                "{\"tool\":\"gpu_xid_errors\",\"node\":\"x\\\"} or vector(1) #\"}", "node of gpu_xid_errors must be a Kubernetes node name",
                "{\"tool\":\"training_step_time\",\"namespace\":\"Not_A_Namespace\"}", "namespace of training_step_time must be a Kubernetes namespace");
        for (Map.Entry<String, String> r : refusals.entrySet()) {
            JsonNode args = JSON.readTree(r.getKey());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tool.call(args), r.getKey());
            assertTrue(e.getMessage().startsWith(r.getValue()), r.getKey() + " → " + e.getMessage());
        }
        // A well-formed call gets as far as Prometheus (which is not there): an error, not a refusal. A null is "not given".
        JsonNode ok = JSON.readTree("{\"tool\":\"gpu_xid_errors\",\"node\":\"gpu-h100-08\",\"namespace\":null}");
        IllegalStateException sent = assertThrows(IllegalStateException.class, () -> tool.call(ok));
        assertTrue(sent.getMessage().startsWith("Prometheus unreachable"), sent.getMessage());
        assertEquals("gpu_xid_errors", tool.audited(ok), "the audit names the query that ran");
        assertEquals(PrometheusTools.NAME, tool.audited(JSON.readTree("{\"tool\":\"node_exec\"}")));
    }
}
