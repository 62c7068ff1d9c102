package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.store.Json;
import io.acceltriage.web.charts.Charts;
import io.quarkus.qute.TemplateExtension;
import java.util.ArrayList;
import java.util.List;

/**
 * The incident page's charts ({@code partials/incident-charts.html}): a sparkline per device reading
 * the diagnosis cites or that moved, from its value one history window before the alert (when the
 * source kept one: Prometheus always, a direct scrape from its previous triage of the node) to its
 * value at triage, the alert's moment marked. Read from the stored assessment, so the page shows what
 * triage saw, not what the devices say now.
 */
final class IncidentCharts {

    private IncidentCharts() {}

    /** One device metric of one accelerator: where, what, the values in time order, and the sparkline. */
    record Spark(String evidenceId, String node, String device, String metric, String before, String atFault, String svg) {}

    @TemplateExtension
    static List<Spark> deviceSparklines(IncidentPage page) {
        return sparklines(page.incident().assessment());
    }

    static List<Spark> sparklines(JsonNode assessment) {
        if (assessment == null) return List.of();
        StoredAssessment a = Json.MAPPER.convertValue(assessment, StoredAssessment.class);
        List<Spark> out = new ArrayList<>();
        for (StoredAssessment.Item item : a.evidence().items()) {
            JsonNode f = item.fact();
            if (f == null || !"metric".equals(f.path("type").asText()) || !f.path("value").isNumber()) continue;
            boolean moved = f.path("previous").isNumber() && f.path("previous").asDouble() != f.path("value").asDouble();
            if (!moved && !a.cites(item.id())) continue; // a level that stayed put says nothing about the fault
            String node = f.path("node").asText("");
            String device = f.path("device").isTextual() ? f.path("device").asText() : null;
            String metric = f.path("metric").asText("");
            double now = f.path("value").asDouble();
            List<Double> values = new ArrayList<>();
            if (f.path("previous").isNumber()) values.add(f.path("previous").asDouble());
            values.add(now);
            String where = node + (device == null ? "" : " GPU " + device);
            String before = values.size() > 1 ? Charts.value(values.get(0), "") : "";
            out.add(new Spark(item.id(), node, device == null ? "" : device, metric, before, Charts.value(now, ""),
                    Charts.sparkline(where + " " + metric + ": " + (before.isEmpty() ? "" : before + " before, ") + Charts.value(now, "")
                            + " at the alert", values, values.size() - 1)));
        }
        return out;
    }
}
