package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.agent.StoredAssessment;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.incident.StoredAlert;
import io.acceltriage.store.Json;
import io.acceltriage.web.charts.Charts;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The incident page's charts ({@code partials/incident-charts.html}): a sparkline per device reading
 * the diagnosis cites or that moved. With Prometheus as the metrics source, each is drawn from a range
 * query over {@link #AROUND} either side of the fault (its moment marked), so the page shows the real
 * "before" and what followed; with the exporter source (which keeps no history) from the two values
 * triage stored: one history window before the alert and at triage. The page says which it is.
 */
@Singleton
final class IncidentCharts {

    private static final Logger LOG = Logger.getLogger(IncidentCharts.class);

    /** How far before and after the fault the sparklines reach. */
    static final Duration AROUND = Duration.ofMinutes(30);

    /** Points a sparkline is drawn from (its width is 120 px): the range query's step is the window over this. */
    static final int POINTS = 60;

    /** One device metric of one accelerator: where, what, the stored values, and the sparkline. */
    record Spark(String evidenceId, String node, String device, String metric, String before, String atFault, String svg) {}

    /** The sparklines and a sentence saying what they were drawn from. */
    record View(List<Spark> sparks, String note) {}

    private final Optional<PrometheusSource> prometheus;

    @jakarta.inject.Inject
    IncidentCharts(MetricsSource metrics) {
        this(metrics instanceof PrometheusSource p ? Optional.of(p) : Optional.empty());
    }

    IncidentCharts(Optional<PrometheusSource> prometheus) {
        this.prometheus = prometheus;
    }

    /** The page's sparklines: from Prometheus' history when it is the source and answers, else the stored pair. */
    View of(IncidentView incident, Instant now) {
        List<Spark> stored = sparklines(incident.assessment());
        if (stored.isEmpty()) return new View(stored, "");
        if (prometheus.isEmpty()) {
            return new View(stored, "Drawn from the two readings triage stored (one history window before the alert, and at the alert):"
                    + " the exporter source keeps no history. With ACCELTRIAGE_METRICS_SOURCE=prometheus they are drawn from "
                    + AROUND.toMinutes() + " min either side of the fault.");
        }
        Instant fault = faultAt(incident);
        Instant from = fault.minus(AROUND);
        Instant to = latest(min(fault.plus(AROUND), now), from.plusSeconds(POINTS));
        Duration step = Duration.between(from, to).dividedBy(POINTS);
        List<Spark> out = new ArrayList<>();
        for (Spark s : stored) {
            try {
                List<PrometheusSource.Series> series = prometheus.get().history(s.node(), s.metric(), from, to, step);
                Optional<PrometheusSource.Series> one = series.stream()
                        .filter(x -> s.device().isEmpty() ? x.device() == null : s.device().equals(x.device())).findFirst();
                out.add(one.filter(x -> !x.points().isEmpty()).map(x -> ranged(s, x, fault, from, to)).orElse(s));
            } catch (MetricsSource.EvidenceUnavailable | IllegalArgumentException e) {
                LOG.debugf("sparkline of %s %s from stored values: %s", s.node(), s.metric(), e.getMessage());
                return new View(stored, "Prometheus did not answer for the history (" + e.getMessage()
                        + "); drawn from the two readings triage stored.");
            }
        }
        return new View(out, "From Prometheus: " + AROUND.toMinutes() + " min before to " + Duration.between(fault, to).toMinutes()
                + " min after the fault (" + PageText.time(fault) + ", the dashed line), every " + step.toSeconds() + " s;"
                + " a reading Prometheus has no series for shows the two values triage stored.");
    }

    private static Spark ranged(Spark s, PrometheusSource.Series series, Instant fault, Instant from, Instant to) {
        List<Charts.Point> points = new ArrayList<>();
        Double before = null;
        for (PrometheusSource.Point p : series.points()) {
            points.add(new Charts.Point(p.at().getEpochSecond(), p.value()));
            if (!p.at().isAfter(fault)) before = p.value();
        }
        String where = s.node() + (s.device().isEmpty() ? "" : " GPU " + s.device());
        String beforeText = before == null ? "" : Charts.value(before, "");
        String title = where + " " + s.metric() + " from " + PageText.time(from) + " to " + PageText.time(to) + ", the fault at "
                + PageText.time(fault);
        return new Spark(s.evidenceId(), s.node(), s.device(), s.metric(), beforeText, s.atFault(),
                Charts.sparkline(title, points, fault.getEpochSecond(), from.getEpochSecond(), to.getEpochSecond()));
    }

    /** The fault's moment: its earliest alert's {@code startsAt} (as the timings count it), else when the incident opened. */
    static Instant faultAt(IncidentView incident) {
        Instant at = incident.openedAt();
        for (StoredAlert a : incident.alerts() == null ? List.<StoredAlert>of() : incident.alerts()) {
            Instant s = a.alert().startsAt();
            if (s != null && (at == null || s.isBefore(at))) at = s;
        }
        return at == null ? Instant.now() : at;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** From the stored assessment alone: the reading one history window before the alert and at triage, the alert marked. */
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
