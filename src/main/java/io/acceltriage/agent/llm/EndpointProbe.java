package io.acceltriage.agent.llm;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;

/**
 * One look at the model endpoint at start (GET {base}/models, the one route every OpenAI-compatible
 * server has), so a wrong URL or a dead server shows on GET /api/v1/mode before the first incident
 * needs the model, instead of only in the audit of that incident's fallback. Any HTTP answer means
 * reachable; 401 or 403 means reachable but the key is refused.
 */
public record EndpointProbe(boolean reachable, Integer status, String detail, Instant at) {

    /** The bound of the probe: long enough for a cold start of a local server, short enough to say so soon. */
    static final Duration AT_MOST = Duration.ofSeconds(5);

    static EndpointProbe of(LlmSettings settings) {
        Duration bound = settings.timeout().compareTo(AT_MOST) < 0 ? settings.timeout() : AT_MOST;
        String base = settings.baseUrl().endsWith("/") ? settings.baseUrl() : settings.baseUrl() + "/";
        HttpClient http = HttpClient.newBuilder().connectTimeout(bound).build();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "models")).timeout(bound).GET();
        if (settings.apiKey() != null) request.header("Authorization", "Bearer " + settings.apiKey().reveal());
        try {
            int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            String detail = status == 401 || status == 403 ? "answered " + status + ": the API key is refused"
                    : "answered " + status;
            return new EndpointProbe(true, status, detail, Instant.now());
        } catch (HttpConnectTimeoutException e) {
            return new EndpointProbe(false, null, "no connection within " + bound.toMillis() + " ms", Instant.now());
        } catch (HttpTimeoutException e) {
            return new EndpointProbe(false, null, "no answer within " + bound.toMillis() + " ms", Instant.now());
        } catch (IOException e) {
            return new EndpointProbe(false, null, "unreachable: " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getClass().getSimpleName() + " " + e.getMessage()), Instant.now());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new EndpointProbe(false, null, "probe interrupted", Instant.now());
        }
    }
}
