package io.acceltriage.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The packaged service (target/quarkus-app/quarkus-run.jar) as a real process of a failsafe test: its
 * own loopback port and folder, the environment the test gives it, output appended to service.log in
 * that folder (a restart keeps one log). {@link #kill} is SIGKILL: no shutdown hook, no flush.
 */
public final class ServiceProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target/quarkus-app/quarkus-run.jar");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path dir;
    private final int port;
    private final Map<String, String> env;
    private final List<String> jvmFlags;
    private final List<String> args;
    private final Path jar;
    private final Process process;
    private final long startedNanos = System.nanoTime();

    private ServiceProcess(Path dir, int port, Map<String, String> env, List<String> jvmFlags, List<String> args) {
        this(dir, port, env, jvmFlags, args, JAR);
    }

    private ServiceProcess(Path dir, int port, Map<String, String> env, List<String> jvmFlags, List<String> args, Path jar) {
        this.jar = jar;
        this.dir = dir;
        this.port = port;
        this.env = env;
        this.jvmFlags = jvmFlags;
        this.args = args;
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("ACCELTRIAGE_PORT", Integer.toString(port));
        pb.environment().put("ACCELTRIAGE_HOST", "127.0.0.1");
        pb.environment().put("ACCELTRIAGE_DATA_DIR", dir.toString());
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("service.log").toFile()));
        try {
            this.process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + jar, e);
        }
    }

    /** Starts the jar on a free port with its data (and log) in {@code dir} and the given ACCELTRIAGE_* settings. */
    public static ServiceProcess start(Path dir, Map<String, String> env) {
        return start(dir, env, List.of());
    }

    /** The same with JVM flags (a heap cap, a collector) before {@code -jar}. */
    public static ServiceProcess start(Path dir, Map<String, String> env, List<String> jvmFlags) {
        assertTrue(Files.exists(JAR), "build the jar first: ./mvnw package");
        return new ServiceProcess(dir, ServerProcess.freePort(), new LinkedHashMap<>(env), List.copyOf(jvmFlags), List.of());
    }

    /** Another build of the service (a benchmark's "before"), from its quarkus-run.jar. */
    public static ServiceProcess start(Path dir, Map<String, String> env, List<String> jvmFlags, Path jar) {
        assertTrue(Files.exists(jar), "no jar at " + jar);
        return new ServiceProcess(dir, ServerProcess.freePort(), new LinkedHashMap<>(env), List.copyOf(jvmFlags), List.of(), jar);
    }

    /** The jar running another command than {@code serve} (e.g. {@code sandbox}) on a free port. */
    public static ServiceProcess startCommand(Path dir, Map<String, String> env, List<String> args) {
        assertTrue(Files.exists(JAR), "build the jar first: ./mvnw package");
        return new ServiceProcess(dir, ServerProcess.freePort(), new LinkedHashMap<>(env), List.of(), List.copyOf(args));
    }

    /** The same service again (folder, port, environment): what a supervisor does after a crash. */
    public ServiceProcess restart() {
        if (process.isAlive()) {
            throw new IllegalStateException("still running: kill or close it first");
        }
        return new ServiceProcess(dir, port, env, jvmFlags, args, jar);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public long pid() {
        return process.pid();
    }

    /** Time since the process was started: read right after {@link #awaitReady}, its start-up time. */
    public Duration sinceStart() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** Resident set size of the process from /proc; 0 where there is none (not Linux, or the process ended). */
    public long rssKiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (IOException | UncheckedIOException gone) {
            // ended, or no /proc
        }
        return 0;
    }

    /** Waits until /q/health/ready answers 200; fails with the log when the process exits or the bound passes. */
    public ServiceProcess awaitReady(Duration bound) {
        awaitHealth(bound, 200);
        return this;
    }

    /** Waits until /q/health/ready answers {@code status} (503 while a dependency is down). */
    public void awaitHealth(Duration bound, int status) {
        // Polled often: a benchmark reads the start-up time off the moment this returns.
        await("readiness " + status, bound, 25, () -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url("/q/health/ready"))).timeout(Duration.ofSeconds(10)));
            return r.statusCode() == status;
        });
    }

    /** Polls {@code done} until it holds; fails with the service's log when the bound passes or the process dies. */
    public void await(String what, Duration bound, java.util.function.BooleanSupplier done) {
        await(what, bound, 200, done);
    }

    private void await(String what, Duration bound, long pollMillis, java.util.function.BooleanSupplier done) {
        Instant deadline = Instant.now().plus(bound);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new AssertionError("the service exited (" + process.exitValue() + ") while waiting for " + what + "\n" + logTail());
            }
            try {
                if (done.getAsBoolean()) return;
            } catch (UncheckedIOException notYet) {
                // not listening yet, or busy
            }
            ServerProcess.sleep(pollMillis);
        }
        throw new AssertionError("no " + what + " within " + bound.toSeconds() + " s\n" + logTail());
    }

    /** GET with a bearer token (null: none). */
    public HttpResponse<String> get(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return send(b);
    }

    /** Polls a GET until its body satisfies {@code ok}; returns that body. */
    public String awaitBody(String path, String token, Duration bound, Predicate<String> ok) {
        String[] last = {""};
        try {
            await(path + " to show what the test expects", bound, () -> ok.test(last[0] = get(path, token).body()));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nlast answer of " + path + ": " + last[0], e);
        }
        return last[0];
    }

    /** POST a JSON body with a bearer token. */
    public HttpResponse<String> postJson(String path, String token, String json) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** SIGKILL, and waits until the process is gone: nothing of it runs after this returns. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError("pid " + process.pid() + " survived SIGKILL for 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of the log, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("service.log"));
            return "----- " + dir.resolve("service.log") + " (last lines) -----\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size())) + "\n----- end -----";
        } catch (IOException e) {
            return "(no service log: " + e.getMessage() + ")";
        }
    }

    /** A graceful stop (SIGTERM), forced after 10 s. */
    @Override
    public void close() {
        if (process.isAlive()) ServerProcess.stop(process);
    }
}
