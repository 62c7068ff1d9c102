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
}
