package io.acceltriage.evidence;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Reads a node's devices by scraping its exporter directly: the freshest reading at triage time, and
 * the only one for fleets without Prometheus. An exporter has no history, so the scrape remembers the
 * previous reading of each node to tell a change (a new XID, a counter increase) from a level.
 */
public final class ExporterScrape implements MetricsSource {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final Duration HISTORY = Duration.ofMinutes(30);

    private final Function<String, Optional<URI>> locator;
    private final HttpClient http;
    private final Map<String, Reading> previous = new ConcurrentHashMap<>();

    private record Reading(Instant at, List<Sample> samples) {}

    public ExporterScrape(Function<String, Optional<URI>> locator) {
        this.locator = locator;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    @Override
    public NodeSamples read(String node) throws EvidenceUnavailable {
        List<Sample> now = scrape(node);
        Instant at = Instant.now();
        Reading before = previous.put(node, new Reading(at, now));
        boolean usable = before != null && Duration.between(before.at(), at).compareTo(HISTORY) < 0;
        return new NodeSamples(now, usable ? before.samples() : List.of());
    }

    /** A scrape that leaves the remembered reading alone: the next triage still compares with its own last one. */
    @Override
    public List<Sample> now(String node) throws EvidenceUnavailable {
        return scrape(node);
    }

    private List<Sample> scrape(String node) throws EvidenceUnavailable {
        URI uri = locator.apply(node).orElseThrow(() -> new EvidenceUnavailable(
                "no device exporter found on node " + node + " (is dcgm-exporter scheduled there?)"));
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new EvidenceUnavailable("exporter on " + node + " unreachable at " + uri + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EvidenceUnavailable("interrupted while scraping the exporter on " + node);
        }
        if (response.statusCode() != 200) {
            throw new EvidenceUnavailable("exporter on " + node + " answered HTTP " + response.statusCode());
        }
        List<Sample> now;
        try {
            now = ExpositionParser.parse(response.body());
        } catch (IllegalArgumentException e) {
            throw new EvidenceUnavailable("exporter on " + node + " served an unreadable page: " + e.getMessage());
        }
        return now;
    }
}
