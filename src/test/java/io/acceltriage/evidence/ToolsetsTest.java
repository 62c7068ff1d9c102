package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The serving and training toolsets: loaded with the device ones, their series marked as the tenant's. */
class ToolsetsTest {

    @Test
    void servingAndTrainingToolsetsShipWithTheBuildAndTheirMetricsAreTheTenants() {
        for (Toolsets t : List.of(Toolsets.load("tools"), Toolsets.load("no-such-folder"))) {
            List<String> names = t.all().stream().map(Toolset::name).toList();
            assertTrue(names.containsAll(List.of("dcgm", "serving", "training")), names.toString());
            for (String metric : List.of("vllm:e2e_request_latency_seconds", "vllm:time_to_first_token_seconds", "vllm:num_requests_waiting",
                    "nv_inference_request_duration_us", "nv_inference_queue_duration_us", "nv_inference_request_failure",
                    "tgi_request_duration", "tgi_queue_size", "training_step_duration_seconds",
                    "training_last_checkpoint_timestamp_seconds")) {
                assertTrue(t.forMetric(metric).isPresent(), metric);
                assertTrue(t.servedByTenant(metric), metric);
            }
            assertFalse(t.servedByTenant("DCGM_FI_DEV_XID_ERRORS"), "the exporter's series stay the platform's");
        }
    }

    @Test
    void aTrustOtherThanPlatformOrTenantStopsTheStartNamingTheFile() {
        String yaml = """
                apiVersion: acceltriage.io/v1
                kind: Toolset
                name: mine
                trust: trusted
                tools:
                  - {name: q, description: a queue depth per replica, metric: m, query: 'm'}
                """;
        Toolset ts = DataFiles.parse("tools/mine.yaml", yaml.getBytes(StandardCharsets.UTF_8), Toolset.class);
        DataFiles.InvalidDataFile e = assertThrows(DataFiles.InvalidDataFile.class, () -> Toolsets.validated("tools/mine.yaml", ts));
        assertEquals("tools/mine.yaml: trust must be platform (a device exporter's series) or tenant (the workload's own), got 'trusted'",
                e.getMessage());
    }

    @Test
    void anImpactToolWithAnUnknownMeasureOrNoWindowStopsTheStartNamingTheTool() {
        String unknown = """
                apiVersion: acceltriage.io/v1
                kind: Toolset
                name: mine
                tools:
                  - name: q
                    description: a latency per namespace
                    metric: m
                    query: 'm{namespace="{{namespace}}"}[{{window}}]'
                    impact: {measure: latency-p95}
                    parameters: [{name: namespace, type: namespace}, {name: window, type: duration}]
                """;
        DataFiles.InvalidDataFile e = assertThrows(DataFiles.InvalidDataFile.class, () -> Toolsets.validated("tools/mine.yaml",
                DataFiles.parse("tools/mine.yaml", unknown.getBytes(StandardCharsets.UTF_8), Toolset.class)));
        assertTrue(e.getMessage().startsWith("tools/mine.yaml: tool 'q': impact.measure must be one of [checkpoint-age, failed-requests,"),
                e.getMessage());
        String noWindow = unknown.replace("latency-p95", "latency-p99").replace("[{{window}}]", "").replace(", {name: window, type: duration}", "");
        e = assertThrows(DataFiles.InvalidDataFile.class, () -> Toolsets.validated("tools/mine.yaml",
                DataFiles.parse("tools/mine.yaml", noWindow.getBytes(StandardCharsets.UTF_8), Toolset.class)));
        assertEquals("tools/mine.yaml: tool 'q': impact.latency-p99 compares a window before with one after the fault: the query needs {{window}}",
                e.getMessage());
    }

    @Test
    void theServingAndTrainingToolsetsSayWhatAFaultDidToTheService() {
        List<String> measures = Toolsets.load("tools").impactTools().stream().map(t -> t.impact().measure()).distinct().sorted().toList();
        assertEquals(List.of("checkpoint-age", "failed-requests", "latency-mean", "latency-p50", "latency-p99", "step-time"), measures);
    }

    @Test
    void aWorkloadsOtherThanServingOrTrainingOrAMalformedResourceStopsTheStartNamingTheFile() {
        String base = """
                apiVersion: acceltriage.io/v1
                kind: Toolset
                name: mine
                %s
                tools:
                  - {name: q, description: a queue depth per replica, metric: m, query: 'm'}
                """;
        Toolset batch = DataFiles.parse("tools/mine.yaml", base.formatted("workloads: batch").getBytes(StandardCharsets.UTF_8), Toolset.class);
        assertEquals("tools/mine.yaml: workloads must be serving or training (which workloads serve the toolset's series), got 'batch'",
                assertThrows(DataFiles.InvalidDataFile.class, () -> Toolsets.validated("tools/mine.yaml", batch)).getMessage());
        Toolset gpu = DataFiles.parse("tools/mine.yaml", base.formatted("resource: gpu").getBytes(StandardCharsets.UTF_8), Toolset.class);
        assertEquals("tools/mine.yaml: resource must be an extended resource name such as nvidia.com/gpu, got 'gpu'",
                assertThrows(DataFiles.InvalidDataFile.class, () -> Toolsets.validated("tools/mine.yaml", gpu)).getMessage());
    }

    @Test
    void theBundledDeviceToolsetsNameTheirDevicesAndTheTenantOnesTheirWorkloads() {
        java.util.Map<String, Toolset> byName = new java.util.HashMap<>();
        Toolsets.load("tools").all().forEach(ts -> byName.put(ts.name(), ts));
        assertEquals("nvidia.com/gpu", byName.get("dcgm").resource());
        assertEquals("amd.com/gpu", byName.get("amd").resource());
        assertEquals("google.com/tpu", byName.get("tpu").resource());
        Workload serving = new Workload("Deployment", "inference", "chat", false, true, List.of(), List.of(), 2, 2);
        Workload gang = new Workload("JobSet", "training", "llm", true, false, List.of(), List.of(), null, null);
        assertTrue(byName.get("serving").servedBy(serving) && !byName.get("serving").servedBy(gang));
        assertTrue(byName.get("training").servedBy(gang) && !byName.get("training").servedBy(serving));
    }
}
