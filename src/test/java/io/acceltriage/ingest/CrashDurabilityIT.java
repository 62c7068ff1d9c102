package io.acceltriage.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing acknowledged is lost: the packaged service takes an alert, answers 200, and is killed
 * with SIGKILL the moment after; started again on the same data folder, it still has the alert and
 * triages it. A real process, really killed.
 */
class CrashDurabilityIT {

    static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    static final String VIEWER_TOKEN = "crash-viewer-token-0123456789";

    @TempDir
    Path data;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void anAcknowledgedAlertSurvivesKillMinus9AndIsTriagedAfterTheRestart() throws Exception {
        assertTrue(Files.exists(JAR), "build the jar first: ./mvnw package");
        int port = freePort();
        Process first = start(port);
        try {
            awaitReady(port, first);
            String body = """
                    {"version":"4","groupKey":"{}:{crash=\\"test\\"}","status":"firing","receiver":"acceltriage","alerts":[
                     {"status":"firing","labels":{"alertname":"GpuXidDeviceFault","node":"gpu-h100-11","gpu":"5","xid":"79","severity":"critical"},
                      "annotations":{"summary":"XID 79"},"startsAt":"2026-11-30T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"c0ffee0000000079"}]}
                    """;
            HttpResponse<String> ack = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/alerts"))
                    .header("Authorization", "Bearer crash-token").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ack.statusCode(), ack.body());
        } finally {
            first.destroyForcibly(); // SIGKILL: no shutdown hooks, no flush
            first.waitFor();
        }
        Process second = start(port);
        try {
            awaitReady(port, second);
            Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
            String incidents = "";
            while (Instant.now().isBefore(deadline)) {
                incidents = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/api/v1/incidents?node=gpu-h100-11")).header("Authorization", "Bearer " + VIEWER_TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                if (incidents.contains("\"family\":\"")) break;
                Thread.sleep(300);
            }
            assertTrue(incidents.contains("\"family\":\""), "after the restart: " + incidents + "\n" + logTail());
            assertTrue(incidents.contains("\"alertCount\":1"), incidents);
        } finally {
            second.destroy();
            second.waitFor();
        }
    }

    /** The packaged service on its own port, data folder and token, logging to a file of the test. */
    private Process start(int port) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString()));
        pb.environment().put("ACCELTRIAGE_PORT", Integer.toString(port));
        pb.environment().put("ACCELTRIAGE_HOST", "127.0.0.1");
        pb.environment().put("ACCELTRIAGE_DATA_DIR", data.toString());
        pb.environment().put("ACCELTRIAGE_ALERTMANAGER_TOKEN", "crash-token");
        pb.environment().put("ACCELTRIAGE_ACCESS_TOKENS", "crash-test:viewer:" + VIEWER_TOKEN);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(data.resolve("service.log").toFile()));
        return pb.start();
    }

    private void awaitReady(int port, Process p) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (Instant.now().isBefore(deadline)) {
            if (!p.isAlive()) {
                throw new AssertionError("the service exited: " + Files.readString(data.resolve("service.log")));
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // listening soon
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not ready in 120 s: " + Files.readString(data.resolve("service.log")));
    }

    private String logTail() throws IOException {
        List<String> lines = Files.readAllLines(data.resolve("service.log"));
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
