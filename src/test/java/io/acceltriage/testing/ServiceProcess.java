package io.acceltriage.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The packaged service (target/quarkus-app/quarkus-run.jar) as its own process on a free loopback
 * port and its own data folder, with a webhook token and an admin token of the test's, awaited until
 * ready. Its output goes to service.log in the folder, shown when something goes wrong.
 */
public final class ServiceProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    public static final String WEBHOOK_TOKEN = "service-test-webhook-token";
    public static final String ADMIN_TOKEN = "service-test-admin-token-0123456789";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final int port;
    private final Path log;
    private long startupNanos;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ServiceProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * JVM flags the benchmarks run the service with: -Dacceltriage.bench.jvm="…" to try others. The
     * default caps the heap the way a container limit would, so resident size means something.
     */
    public static String benchmarkJvmFlags() {
        return System.getProperty("acceltriage.bench.jvm", "-Xmx256m -XX:+UseSerialGC");
    }

    /** Starts the service with extra environment (e.g. ACCELTRIAGE_SANDBOX_LATENCY) and waits until it is ready. */
    public static ServiceProcess start(Path dir, Map<String, String> env) throws IOException, InterruptedException {
        if (!Files.exists(JAR)) throw new AssertionError("build the jar first: ./mvnw package");
        Files.createDirectories(dir);
        int port = ServerProcess.freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String flag : benchmarkJvmFlags().trim().split("\\s+")) {
            if (!flag.isEmpty()) command.add(flag);
        }
        command.addAll(List.of("-jar", JAR.toString()));
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> environment = new HashMap<>(env);
        environment.put("ACCELTRIAGE_PORT", Integer.toString(port));
        environment.put("ACCELTRIAGE_HOST", "127.0.0.1");
        environment.put("ACCELTRIAGE_DATA_DIR", dir.resolve("data").toString());
        environment.put("ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK_TOKEN);
        environment.put("ACCELTRIAGE_ACCESS_TOKENS", "service-test:admin:" + ADMIN_TOKEN);
        pb.environment().putAll(environment);
        Path log = dir.resolve("service.log");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        long began = System.nanoTime();
        Process process = pb.start();
        ServiceProcess service = new ServiceProcess(process, port, log);
        try {
            service.awaitReady();
        } catch (AssertionError | IOException | InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
        service.startupNanos = System.nanoTime() - began;
        return service;
    }

    private void awaitReady() throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) throw new AssertionError("the service exited:\n" + logTail());
            try {
                if (send(HttpRequest.newBuilder(uri("/q/health/ready"))).statusCode() == 200) return;
            } catch (IOException notYet) {
                // listening soon
            }
            Thread.sleep(20);
        }
        throw new AssertionError("not ready in 120 s:\n" + logTail());
    }

    public long startupNanos() {
        return startupNanos;
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Resident set size of the service process, from /proc (0 where there is no /proc). */
    public long rssKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (IOException | UncheckedIOException gone) {
            // the process ended, or not Linux
        }
        return 0;
    }

    public String get(String path, int expected) throws IOException, InterruptedException {
        return expect(send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + ADMIN_TOKEN)), expected);
    }

    public JsonNode getJson(String path) throws IOException, InterruptedException {
        return JSON.readTree(get(path, 200));
    }

    public JsonNode postJson(String path, String body, int expected) throws IOException, InterruptedException {
        return JSON.readTree(expect(send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + ADMIN_TOKEN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))), expected));
    }

    /** An Alertmanager delivery with the webhook token; the answer must be 200. */
    public String postWebhook(byte[] body) throws IOException, InterruptedException {
        return expect(send(HttpRequest.newBuilder(uri("/api/v1/alerts")).header("Authorization", "Bearer " + WEBHOOK_TOKEN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body))), 200);
    }

    /** The value of an unlabelled sample on /metrics; -1 when the service does not serve it. */
    public long metric(String name) throws IOException, InterruptedException {
        for (String line : get("/metrics", 200).split("\n")) {
            if (line.startsWith(name + " ")) return (long) Double.parseDouble(line.substring(name.length() + 1).trim());
        }
        return -1;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String expect(HttpResponse<String> response, int expected) {
        if (response.statusCode() != expected) {
            throw new AssertionError(response.request().method() + " " + response.uri() + " answered " + response.statusCode()
                    + " (expected " + expected + "): " + response.body());
        }
        return response.body();
    }

    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
