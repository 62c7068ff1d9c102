package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.evidence.Facts;
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
            if (!(item.typedFact().orElse(null) instanceof Facts.MetricReading f)) continue;
            if (!f.changed() && !a.cites(item.id())) continue; // a level that stayed put says nothing about the fault
            String node = f.node() == null ? "" : f.node();
            String device = f.device();
            String metric = f.metric();
            double now = f.value();
            List<Double> values = new ArrayList<>();
            if (f.previous() != null) values.add(f.previous());
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
