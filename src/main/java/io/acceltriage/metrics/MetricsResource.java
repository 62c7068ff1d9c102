package io.acceltriage.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** GET /metrics: the service's own metrics in the Prometheus text format, for a ServiceMonitor to scrape. */
@Path("/metrics")
class MetricsResource {

    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    private final ServiceMetrics metrics;
    private final jakarta.enterprise.inject.Instance<io.acceltriage.policy.CircuitBreakerControl> breaker;

    MetricsResource(ServiceMetrics metrics, jakarta.enterprise.inject.Instance<io.acceltriage.policy.CircuitBreakerControl> breaker) {
        this.metrics = metrics;
        this.breaker = breaker;
    }

    @GET
    public Response scrape() {
        // The breaker's state lives in the store (a person may reset it on another replica): read it per scrape.
        if (breaker.isResolvable()) {
            metrics.circuitBreaker(breaker.get().tripped());
        }
        MetricSnapshots snapshots = metrics.registry().scrape();
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            WRITER.write(out, snapshots, EscapingScheme.UNDERSCORE_ESCAPING);
            // The writer leaves out families without series (a model never called); their HELP and TYPE
            // still tell a reader, and the dashboard's author, that the family exists.
            for (MetricSnapshot s : snapshots) {
                if (s.getDataPoints().isEmpty()) {
                    String name = s.getMetadata().getPrometheusName() + (s instanceof CounterSnapshot ? "_total" : "");
                    out.write(("# HELP " + name + " " + s.getMetadata().getHelp().replace("\\", "\\\\").replace("\n", "\\n") + "\n"
                            + "# TYPE " + name + " " + type(s) + "\n").getBytes(StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Response.ok(out.toByteArray(), PrometheusTextFormatWriter.CONTENT_TYPE).build();
    }

    private static String type(MetricSnapshot s) {
        if (s instanceof CounterSnapshot) return "counter";
        if (s instanceof GaugeSnapshot) return "gauge";
        if (s instanceof HistogramSnapshot) return "histogram";
        return "untyped";
    }
}
