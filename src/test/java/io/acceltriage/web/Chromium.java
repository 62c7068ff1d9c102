package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A real headless Chromium driven through chromedriver's W3C WebDriver protocol over HTTP: no
 * Selenium, just the JSON wire format. Fails with a clear message when either binary is missing.
 */
final class Chromium implements AutoCloseable {

    static final String CHROMIUM = System.getProperty("acceltriage.test.chromium", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getProperty("acceltriage.test.chromedriver", "/usr/bin/chromedriver");
    private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process driver;
    private final String base;
    private final String session;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private Chromium(Process driver, String base, String session) {
        this.driver = driver;
        this.base = base;
        this.session = session;
    }

    static Chromium start(Path profileDir) throws Exception {
        for (String binary : List.of(CHROMIUM, CHROMEDRIVER)) {
            if (!Files.isExecutable(Path.of(binary))) {
                throw new AssertionError(binary + " is missing: the page test needs a real browser. Install Debian's"
                        + " chromium and chromium-driver (apt-get install chromium chromium-driver), as CI does.");
            }
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(CHROMEDRIVER, "--port=" + port).redirectErrorStream(true)
                .redirectOutput(profileDir.resolveSibling("chromedriver.log").toFile()).start();
        String base = "http://127.0.0.1:" + port;
        HttpClient probe = HttpClient.newHttpClient();
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            try {
                HttpResponse<String> r = probe.send(HttpRequest.newBuilder(URI.create(base + "/status")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (JSON.readTree(r.body()).path("value").path("ready").asBoolean()) break;
            } catch (IOException e) {
                // not listening yet
            }
            if (Instant.now().isAfter(deadline) || !p.isAlive()) {
                p.destroy();
                throw new AssertionError("chromedriver did not become ready on port " + port + " within 30 s; see "
                        + profileDir.resolveSibling("chromedriver.log"));
            }
            Thread.sleep(100);
        }
        Map<String, Object> options = Map.of("binary", CHROMIUM, "args", List.of("--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-dev-shm-usage", "--window-size=1400,1000", "--user-data-dir=" + profileDir.toAbsolutePath()));
        Map<String, Object> caps = Map.of("capabilities", Map.of("alwaysMatch",
                Map.of("browserName", "chrome", "goog:chromeOptions", options)));
        Chromium c = new Chromium(p, base, null);
        JsonNode created = c.call("POST", "/session", caps);
        return new Chromium(p, base, created.path("sessionId").asText());
    }

    void open(String url) throws Exception {
        call("POST", "/session/" + session + "/url", Map.of("url", url));
    }

    String find(String css) throws Exception {
        JsonNode found = call("POST", "/session/" + session + "/element", Map.of("using", "css selector", "value", css));
        String id = found.path(ELEMENT).asText();
        if (id.isEmpty()) {
            throw new AssertionError("no element id for '" + css + "' in " + found);
        }
        return id;
    }

    void type(String css, String text) throws Exception {
        call("POST", "/session/" + session + "/element/" + find(css) + "/value", Map.of("text", text));
    }

    void click(String css) throws Exception {
        call("POST", "/session/" + session + "/element/" + find(css) + "/click", Map.of());
    }

    String text(String css) throws Exception {
        return call("GET", "/session/" + session + "/element/" + find(css) + "/text", null).asText();
    }

    String url() throws Exception {
        return call("GET", "/session/" + session + "/url", null).asText();
    }

    /**
     * The page's address once it satisfies {@code expected}, or as it is after 10 s. A click that submits
     * a form returns before the browser has followed the answer's redirect.
     */
    String urlOnce(java.util.function.Predicate<String> expected) throws Exception {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        String url = url();
        while (!expected.test(url) && System.nanoTime() < until) {
            Thread.sleep(50);
            url = url();
        }
        return url;
    }

    String source() throws Exception {
        return call("GET", "/session/" + session + "/source", null).asText();
    }

    /** What a person sees first, in a laptop-sized window. */
    void viewport(Path file) throws Exception {
        String png = call("GET", "/session/" + session + "/screenshot", null).asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png));
    }

    /** One element as drawn, e.g. a chart or a table of charts. */
    void screenshotOf(String css, Path file) throws Exception {
        String png = call("GET", "/session/" + session + "/element/" + find(css) + "/screenshot", null).asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png));
    }

    /** The whole page, however long: the window is stretched to the document's height first. */
    void screenshot(Path file) throws Exception {
        long height = call("POST", "/session/" + session + "/execute/sync",
                Map.of("script", "return document.documentElement.scrollHeight", "args", List.of())).asLong();
        call("POST", "/session/" + session + "/window/rect", Map.of("width", 1400, "height", Math.min(Math.max(height + 150, 900), 8000)));
        String png = call("GET", "/session/" + session + "/screenshot", null).asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png));
    }

    private JsonNode call(String method, String path, Object body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode value = JSON.readTree(r.body()).path("value");
        if (r.statusCode() != 200) {
            throw new AssertionError("WebDriver " + method + " " + path + " answered " + r.statusCode() + ": "
                    + value.path("error").asText() + ": " + value.path("message").asText());
        }
        return value;
    }

    @Override
    public void close() {
        try {
            if (session != null) {
                call("DELETE", "/session/" + session, null);
            }
        } catch (Exception e) {
            // the browser is going away either way
        } finally {
            driver.destroy();
        }
    }
}
