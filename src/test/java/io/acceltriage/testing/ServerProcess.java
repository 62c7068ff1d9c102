package io.acceltriage.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real server (Prometheus, Alertmanager) run by a test: Debian's binary on a free loopback port with
 * a temporary working folder, its output kept in a log file to print when something goes wrong, and
 * stopped by the test (by this process's handle, never by name).
 */
public final class ServerProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final Path log;
    private final Path dir;

    private ServerProcess(String name, Process process, Path log, Path dir) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.dir = dir;
    }

    /** Fails (never skips) when the binary is missing: the real-server tests are part of the build. */
    public static void requireBinary(String binary, String debianPackage) {
        if (!Files.isExecutable(Path.of(binary))) {
            fail(binary + " is missing: apt-get install " + debianPackage);
        }
    }

    /** A temporary folder for one server's configuration, data and log. */
    public static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ServerProcess start(String name, Path dir, List<String> command) {
        Path log = dir.resolve(name + ".log");
        try {
            Process p = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            return new ServerProcess(name, p, log, dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    /** A port nobody listens on right now (the server binds it a moment later). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for a condition, bounded; on timeout fails with what was awaited and the server's log. */
    public void await(String what, Duration bound, BooleanSupplier condition) {
        Instant deadline = Instant.now().plus(bound);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                fail(name + " exited (code " + process.exitValue() + ") while waiting for " + what + "\n" + log());
            }
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                // not there yet
            }
            sleep(200);
        }
        fail("no " + what + " within " + bound.toSeconds() + " s\n" + log());
    }

    /** GET a URL, returning the body of a 200 or null. */
    public static String get(String url) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The server's output so far, headed with its name, for failure messages. */
    public String log() {
        try {
            List<String> lines = Files.readAllLines(log);
            int from = Math.max(0, lines.size() - 80);
            return "----- " + name + " log (last " + (lines.size() - from) + " lines) -----\n"
                    + String.join("\n", lines.subList(from, lines.size())) + "\n----- end of " + name + " log -----";
        } catch (IOException e) {
            return "(no " + name + " log: " + e.getMessage() + ")";
        }
    }

    /** A graceful stop (SIGTERM), forced after 10 s. */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        stop(process);
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp folder is harmless
        }
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
