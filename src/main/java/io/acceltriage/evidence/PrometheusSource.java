package io.acceltriage.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceltriage.config.KubernetesNames;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Reads a node's device series from Prometheus through its HTTP API: the instant value now and the
 * value one history window ago ({@code offset}), so the collector tells a new XID or a counter
 * increase from a level, as with a direct scrape, but from Prometheus' own memory of the node.
 *
 * <p>The node is matched on dcgm-exporter's {@code Hostname}, AMD's {@code hostname}, or a {@code node}
 * label (kube-state-metrics, or a relabelled scrape). Every failure, from a refused connection to an
 * error envelope, becomes an {@link EvidenceUnavailable} that says what to check.
 */
public final class PrometheusSource implements MetricsSource {

    private static final Logger LOG = Logger.getLogger(PrometheusSource.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY_IN_MESSAGE = 200;

    private final URI base;
    private final Duration timeout;
    private final Duration history;
    private final HttpClient http;

    /**
     * @param base    Prometheus' address, e.g. {@code http://prometheus-operated.monitoring.svc:9090}
     * @param timeout the bound of one query, sent to Prometheus too so it gives up at the same time
     * @param history how far back the earlier reading is taken (ten minutes in production)
     */
    public PrometheusSource(URI base, Duration timeout, Duration history) {
        String b = base.toString();
        this.base = URI.create(b.endsWith("/") ? b : b + "/");
        this.timeout = timeout;
        this.history = history;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public NodeSamples read(String node) throws EvidenceUnavailable {
        if (node == null || !KubernetesNames.isName(node)) {
            throw new EvidenceUnavailable("cannot ask Prometheus about \"" + node + "\": not a Kubernetes node name");
        }
        List<Sample> now = query(seriesOf(node, ""), node);
        List<Sample> before = query(seriesOf(node, " offset " + promDuration(history)), node);
        return new NodeSamples(now, before);
    }

    /** Every series of the node, whichever label names it (`or` keeps one copy of a series matched twice). */
    static String seriesOf(String node, String offset) {
        return seriesOf("", node, offset);
    }

    /** The node's series of {@code metric} (every metric when empty), whichever label names the node. */
    private static String seriesOf(String metric, String node, String offset) {
        return metric + "{Hostname=\"" + node + "\"}" + offset + " or " + metric + "{hostname=\"" + node + "\"}" + offset
                + " or " + metric + "{node=\"" + node + "\"}" + offset;
    }

    /** From configuration; a missing or malformed URL fails the start, naming the key. */
    public static PrometheusSource from(PrometheusConfig config) {
        String url = config.url().map(String::strip).filter(u -> !u.isEmpty()).orElseThrow(() -> new IllegalStateException(
                "ACCELTRIAGE_METRICS_SOURCE=prometheus needs ACCELTRIAGE_PROMETHEUS_URL (acceltriage.prometheus.url),"
                        + " e.g. http://prometheus-operated.monitoring.svc:9090"));
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalStateException("ACCELTRIAGE_PROMETHEUS_URL (acceltriage.prometheus.url) must be an http(s) URL"
                    + " such as http://prometheus-operated.monitoring.svc:9090, got \"" + url + "\"");
        }
        return new PrometheusSource(uri, config.timeout(), config.history());
    }

    /** Series a tool's answer keeps: enough to compare a node's GPUs or a workload's replicas, bounded for the model. */
    public static final int MAX_TOOL_SERIES = 64;
    private static final java.util.regex.Pattern PLACEHOLDER = java.util.regex.Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");
    private static final java.util.regex.Pattern GPU = java.util.regex.Pattern.compile("[0-9]{1,3}");
    private static final java.util.regex.Pattern DURATION = java.util.regex.Pattern.compile("[1-9][0-9]{0,3}[smhd]");
    private static final java.util.regex.Pattern TEXT = java.util.regex.Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    /** What one tool of {@code tools/} answered: its query as run, how many series matched, the first {@link #MAX_TOOL_SERIES}. */
    public record ToolReading(String tool, String query, int series, List<Sample> samples) {}

    /**
     * Runs one declarative tool of {@code tools/}: its own PromQL template with typed arguments, as an
     * instant query (a GET of the query API: read-only by construction; nothing else can be asked
     * through here). An argument the tool does not declare, a missing one, or one that is not of its
     * parameter's type is refused with an IllegalArgumentException before anything is sent.
     */
    public ToolReading run(Toolset.Tool tool, Map<String, String> arguments) throws EvidenceUnavailable {
        String promql = render(tool, arguments);
        // A tool may aggregate (sum by pod, histogram_quantile): its series need not keep a metric name.
        List<Sample> samples = instant(promql, null, "tool " + tool.name(), "");
        return new ToolReading(tool.name(), promql, samples.size(), List.copyOf(samples.subList(0, Math.min(samples.size(), MAX_TOOL_SERIES))));
    }

    /** The tool's query with each parameter filled in, after checking every argument against the tool's declared parameters. */
    public static String render(Toolset.Tool tool, Map<String, String> arguments) {
        Map<String, Toolset.Parameter> declared = new LinkedHashMap<>();
        for (Toolset.Parameter p : tool.parameters() == null ? List.<Toolset.Parameter>of() : tool.parameters()) declared.put(p.name(), p);
        for (String name : arguments.keySet()) {
            if (!declared.containsKey(name)) {
                throw new IllegalArgumentException("'" + abbreviate(name) + "' is not a parameter of " + tool.name() + " (it takes "
                        + (declared.isEmpty() ? "none" : String.join(", ", declared.keySet())) + ")");
            }
        }
        java.util.regex.Matcher m = PLACEHOLDER.matcher(tool.query());
        StringBuilder q = new StringBuilder();
        while (m.find()) {
            Toolset.Parameter p = declared.get(m.group(1));
            if (p == null) throw new IllegalArgumentException(tool.name() + "'s query uses {{" + m.group(1) + "}}, which it does not declare");
            String v = arguments.get(p.name());
            if (v == null || v.isBlank()) throw new IllegalArgumentException(tool.name() + " needs " + p.name() + " (" + typeName(p.type()) + ")");
            if (!valid(p.type(), v)) {
                throw new IllegalArgumentException(p.name() + " of " + tool.name() + " must be " + typeName(p.type()) + ", got \""
                        + abbreviate(v) + "\"");
            }
            m.appendReplacement(q, java.util.regex.Matcher.quoteReplacement(v));
        }
        m.appendTail(q);
        return q.toString();
    }

    /** Every value lands inside a label matcher's quotes: each type admits no quote, brace, backslash or space. */
    private static boolean valid(Toolset.ParameterType type, String v) {
        return switch (type) {
            case NODE, POD -> KubernetesNames.isName(v);
            case NAMESPACE -> KubernetesNames.isNamespace(v);
            case GPU -> GPU.matcher(v).matches();
            case DURATION -> DURATION.matcher(v).matches();
            case STRING -> TEXT.matcher(v).matches();
        };
    }

    private static String typeName(Toolset.ParameterType type) {
        return switch (type) {
            case NODE -> "a Kubernetes node name";
            case POD -> "a Kubernetes pod name";
            case NAMESPACE -> "a Kubernetes namespace";
            case GPU -> "a GPU index (0-999)";
            case DURATION -> "a Prometheus duration such as 5m";
            case STRING -> "letters, digits and _ . : - (at most 128)";
        };
    }

    /** Runs an instant query and returns its vector; any other outcome is an EvidenceUnavailable. */
    List<Sample> query(String promql, String node) throws EvidenceUnavailable {
        return instant(promql, null, "node " + node, null);
    }

    /**
     * An instant query evaluated at a moment of the past ({@code time=}), for readers outside triage that
     * compare windows around a fault (reliability's service impact): a range selector in the query,
     * {@code [15m]}, then covers the window that ends at {@code at}. {@code about} names what is asked
     * for in errors, and a series an aggregation left without a metric name. An empty vector is an empty
     * list: the series does not exist there. A scalar answer is one sample named "scalar".
     */
    public List<Sample> queryAt(String promql, Instant at, String about) throws EvidenceUnavailable {
        return instant(promql, at, about, about);
    }

    /** One point of a range query's series. */
    public record Point(Instant at, double value) {}

    /** One series of a range query: its name ({@code about} for an aggregate), its labels, its points in time order. */
    public record Series(String name, Map<String, String> labels, List<Point> points) {
        public Series {
            labels = Map.copyOf(labels);
            points = List.copyOf(points);
        }

        public String label(String name) {
            return labels.get(name);
        }

        /** The accelerator the series is about, read as {@link Sample#device()} reads it. */
        public String device() {
            return new Sample(name, labels, 0).device();
        }
    }

    /** The most points a range query may ask for: Prometheus itself refuses more than 11,000 a series. */
    public static final int MAX_RANGE_POINTS = 1_000;

    /**
     * A range query ({@code /api/v1/query_range}): the series of {@code promql} from {@code from} to
     * {@code to} every {@code step}, e.g. a device's readings before and after a fault. A window that
     * would need more than {@link #MAX_RANGE_POINTS} points is refused before anything is sent.
     */
    public List<Series> queryRange(String promql, Instant from, Instant to, Duration step, String about) throws EvidenceUnavailable {
        if (!to.isAfter(from) || step.isNegative() || step.isZero()) {
            throw new IllegalArgumentException("a range query needs from before to and a positive step, got " + from + " to " + to
                    + " every " + step);
        }
        if (Duration.between(from, to).dividedBy(step) > MAX_RANGE_POINTS) {
            throw new IllegalArgumentException("a range query of " + Duration.between(from, to) + " every " + step + " is more than "
                    + MAX_RANGE_POINTS + " points");
        }
        JsonNode data = ask("api/v1/query_range", promql, "&start=" + time(from) + "&end=" + time(to) + "&step=" + promDuration(step), about);
        String type = data.path("resultType").asText();
        if (!"matrix".equals(type)) {
            throw new EvidenceUnavailable("Prometheus answered a " + (type.isEmpty() ? "missing" : type)
                    + " result where a range (matrix) was expected, about " + about);
        }
        List<Series> out = new ArrayList<>();
        for (JsonNode series : data.path("result")) {
            Map<String, String> labels = labels(series);
            String name = labels.remove("__name__");
            List<Point> points = new ArrayList<>();
            for (JsonNode v : series.path("values")) {
                if (!v.isArray() || v.size() != 2 || !v.get(0).isNumber() || !v.get(1).isTextual()) {
                    throw new EvidenceUnavailable("Prometheus returned a malformed series about " + about + ": " + abbreviate(series.toString()));
                }
                points.add(new Point(Instant.ofEpochMilli(Math.round(v.get(0).asDouble() * 1000)), parseValue(v.get(1).asText(), about)));
            }
            out.add(new Series(name == null ? about : name, labels, points));
        }
        return out;
    }

    private static final java.util.regex.Pattern METRIC_NAME = java.util.regex.Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]{0,199}");

    /**
     * One device metric of a node over a window (every GPU's series of it; the caller picks the one it
     * charts), matched on the node as {@link #read} matches it. A name that is not a metric name or a
     * node name is refused before anything is sent: both come from stored evidence, not from a person.
     */
    public List<Series> history(String node, String metric, Instant from, Instant to, Duration step) throws EvidenceUnavailable {
        if (node == null || !KubernetesNames.isName(node) || metric == null || !METRIC_NAME.matcher(metric).matches()) {
            throw new IllegalArgumentException("cannot ask Prometheus for the history of \"" + abbreviate(metric) + "\" on \""
                    + abbreviate(node) + "\": not a metric name and a node name");
        }
        return queryRange(seriesOf(metric, node, ""), from, to, step, metric + " of node " + node);
    }

    /**
     * The one instant query: now, or at {@code at}. {@code unnamed} is the name given to a series
     * without a metric name (an aggregate's) and allows a scalar answer; null requires every series to
     * carry its name and the answer to be a vector (a node's raw series).
     */
    private List<Sample> instant(String promql, Instant at, String subject, String unnamed) throws EvidenceUnavailable {
        JsonNode data = ask("api/v1/query", promql, at == null ? "" : "&time=" + time(at), subject);
        String type = data.path("resultType").asText();
        if ("scalar".equals(type) && unnamed != null) {
            return List.of(new Sample("scalar", Map.of(), parseValue(data.path("result").path(1).asText(), subject)));
        }
        if (!"vector".equals(type)) {
            throw new EvidenceUnavailable("Prometheus answered a " + (type.isEmpty() ? "missing" : type)
                    + " result where an instant vector was expected, for " + subject);
        }
        List<Sample> out = new ArrayList<>();
        for (JsonNode series : data.path("result")) {
            Map<String, String> labels = labels(series);
            String name = labels.remove("__name__");
            if (name == null) name = unnamed;
            JsonNode value = series.path("value");
            if (name == null || !value.isArray() || value.size() != 2 || !value.get(1).isTextual()) {
                throw new EvidenceUnavailable("Prometheus returned a malformed series for " + subject + ": " + abbreviate(series.toString()));
            }
            out.add(new Sample(name, labels, parseValue(value.get(1).asText(), subject)));
        }
        return out;
    }

    /**
     * GETs one query endpoint (read-only by construction) and returns the {@code data} of a successful
     * envelope; a refused connection, a timeout, a body that is not Prometheus' envelope, or an error
     * envelope is an EvidenceUnavailable naming {@code subject} and what to check.
     */
    private JsonNode ask(String endpoint, String promql, String parameters, String subject) throws EvidenceUnavailable {
        URI uri = base.resolve(endpoint + "?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8) + parameters
                + "&timeout=" + promDuration(timeout));
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (java.net.http.HttpTimeoutException e) {
            throw new EvidenceUnavailable("Prometheus at " + base + " did not answer within " + timeout.toMillis()
                    + " ms for " + subject + "; check its load or raise ACCELTRIAGE_PROMETHEUS_TIMEOUT");
        } catch (IOException e) {
            throw new EvidenceUnavailable("Prometheus unreachable at " + base + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); check ACCELTRIAGE_PROMETHEUS_URL");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EvidenceUnavailable("interrupted while querying Prometheus for " + subject);
        }
        JsonNode envelope;
        try {
            envelope = JSON.readTree(response.body());
        } catch (IOException e) {
            envelope = null;
        }
        if (envelope == null || !envelope.isObject() || !envelope.has("status")) {
            throw new EvidenceUnavailable("Prometheus at " + base + " answered HTTP " + response.statusCode()
                    + " without its JSON envelope (a proxy or the wrong URL?): " + abbreviate(response.body()));
        }
        if (!"success".equals(envelope.path("status").asText())) {
            throw new EvidenceUnavailable("Prometheus refused the query for " + subject + ": HTTP " + response.statusCode()
                    + " " + envelope.path("errorType").asText("unknown error type") + ": "
                    + envelope.path("error").asText("no reason given"));
        }
        for (JsonNode warning : envelope.path("warnings")) {
            LOG.warnf("Prometheus warns about the query for %s: %s", subject, warning.asText());
        }
        return envelope.path("data");
    }

    /** A series' {@code metric} object as labels, {@code __name__} included (the caller takes it out). */
    private static Map<String, String> labels(JsonNode series) {
        Map<String, String> labels = new LinkedHashMap<>();
        series.path("metric").fields().forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
        return labels;
    }

    private static double parseValue(String s, String subject) throws EvidenceUnavailable {
        switch (s) {
            case "NaN": return Double.NaN;
            case "+Inf": case "Inf": return Double.POSITIVE_INFINITY;
            case "-Inf": return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new EvidenceUnavailable("Prometheus returned the non-number \"" + abbreviate(s) + "\" for " + subject);
                }
        }
    }

    /** A moment as the query API takes it: Unix seconds with milliseconds. */
    private static String time(Instant at) {
        return at.getEpochSecond() + "." + String.format(java.util.Locale.ROOT, "%03d", at.getNano() / 1_000_000);
    }

    /** A duration as PromQL and the API's timeout parameter spell it: whole milliseconds, "1500ms". */
    static String promDuration(Duration d) {
        return Math.max(1, d.toMillis()) + "ms";
    }

    private static String abbreviate(String s) {
        if (s == null) return "";
        String flat = s.replaceAll("\\s+", " ").strip();
        return flat.length() > MAX_BODY_IN_MESSAGE ? flat.substring(0, MAX_BODY_IN_MESSAGE) + "…" : flat;
    }

    @Override
    public String toString() {
        return "Prometheus at " + base;
    }
}
