package io.acceltriage.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.store.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The incident page's sparklines from a stored assessment: what moved or is cited, before and at the alert. */
class IncidentChartsTest {

    private static JsonNode assessment(String items, String cited) {
        return Json.MAPPER.valueToTree(Json.read("{\"evidence\":{\"items\":[" + items + "]},\"diagnosis\":{\"family\":\"device\","
                + "\"evidenceIds\":[" + cited + "]}}", Object.class));
    }

    private static String reading(String id, String metric, double value, Double previous) {
        return "{\"id\":\"" + id + "\",\"source\":\"METRICS\",\"summary\":\"s\",\"fact\":{\"type\":\"metric\",\"node\":\"n1\","
                + "\"device\":\"3\",\"metric\":\"" + metric + "\",\"value\":" + value + ",\"previous\":" + previous + "}}";
    }

    @Test
    void aReadingThatMovedIsALineFromBeforeToTheAlertWithTheAlertMarked() {
        List<IncidentCharts.Spark> sparks = IncidentCharts.sparklines(assessment(
                reading("E1", "DCGM_FI_DEV_GPU_TEMP", 91, 60.0) + "," + reading("E2", "DCGM_FI_DEV_MEMORY_TEMP", 40, 40.0), ""));
        assertEquals(1, sparks.size(), "the level that stayed put is left out: " + sparks);
        IncidentCharts.Spark s = sparks.get(0);
        assertEquals("60", s.before());
        assertEquals("91", s.atFault());
        assertTrue(s.svg().contains("<title>n1 GPU 3 DCGM_FI_DEV_GPU_TEMP: 60 before, 91 at the alert (60 to 91)</title>"), s.svg());
        assertTrue(s.svg().contains("points=\"3.0,25.0 117.0,3.0\"") && s.svg().contains("class=\"mark\" x1=\"117.0\""), s.svg());
    }

    @Test
    void aCitedReadingWithoutAnEarlierOneIsStillShownAsItsValue() {
        List<IncidentCharts.Spark> sparks = IncidentCharts.sparklines(assessment(reading("E7", "DCGM_FI_DEV_XID_ERRORS", 79, null), "\"E7\""));
        assertEquals(1, sparks.size());
        assertEquals("", sparks.get(0).before());
        assertTrue(sparks.get(0).svg().contains("DCGM_FI_DEV_XID_ERRORS: 79 at the alert"), sparks.get(0).svg());
        assertTrue(IncidentCharts.sparklines(null).isEmpty());
    }

    private static IncidentView incident(JsonNode assessment) {
        java.time.Instant opened = java.time.Instant.parse("2026-12-01T12:00:00Z");
        return new IncidentView("inc-1", "node:n1", "n1", "mitigated", "device", 0.9, 1, opened, opened, null, "s", List.of(), assessment,
                List.of(), List.of());
    }

    @Test
    void withTheExporterSourceThePageSaysItDrawsTheStoredPairAndHowToGetTheHistory() {
        IncidentCharts.View v = new IncidentCharts(java.util.Optional.empty()).of(incident(assessment(reading("E1", "DCGM_FI_DEV_GPU_TEMP", 91, 60.0), "")),
                java.time.Instant.now());
        assertEquals(1, v.sparks().size());
        assertTrue(v.sparks().get(0).svg().contains("points=\"3.0,25.0 117.0,3.0\""), "the stored pair: " + v.sparks().get(0).svg());
        assertTrue(v.note().contains("the exporter source keeps no history") && v.note().contains("ACCELTRIAGE_METRICS_SOURCE=prometheus"),
                v.note());
    }

    @Test
    void aPrometheusThatDoesNotAnswerLeavesTheStoredPairAndSaysWhy() {
        int closed = io.acceltriage.testing.ServerProcess.freePort();
        var unreachable = new io.acceltriage.evidence.PrometheusSource(java.net.URI.create("http://127.0.0.1:" + closed),
                java.time.Duration.ofSeconds(2), java.time.Duration.ofMinutes(10));
        IncidentCharts.View v = new IncidentCharts(java.util.Optional.of(unreachable))
                .of(incident(assessment(reading("E1", "DCGM_FI_DEV_GPU_TEMP", 91, 60.0), "")), java.time.Instant.now());
        assertTrue(v.sparks().get(0).svg().contains("points=\"3.0,25.0 117.0,3.0\""), v.sparks().get(0).svg());
        assertTrue(v.note().startsWith("Prometheus did not answer for the history (Prometheus unreachable at http://127.0.0.1:" + closed),
                v.note());
        assertTrue(new IncidentCharts(java.util.Optional.of(unreachable)).of(incident(null), java.time.Instant.now()).sparks().isEmpty());
    }
}
