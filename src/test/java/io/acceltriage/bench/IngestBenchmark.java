package io.acceltriage.bench;

import io.acceltriage.bench.LoadBenchmark.Run;
import io.acceltriage.bench.LoadBenchmark.Service;
import io.acceltriage.testing.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingest under a backlog, and the memory it costs, of the packaged service run as its own process with
 * the deployment's heap: a 20,000-alert storm sent flat out (a backlog the filer works through), then
 * 1,000 alerts/s paced like Alertmanager while that backlog is being filed (acknowledgement latency
 * counted from when each delivery was due, the health endpoint at the same rate beside it as the
 * baseline), then a burst on 32 connections; resident size sampled throughout.
 *
 * <p>{@code -Dacceltriage.bench.before=PATH/quarkus-run.jar} runs the same against another build first
 * (the code before a change: ratios within one run); {@code -Dacceltriage.bench.after=PATH,PATH} runs others after
 * it (before=A, after=copy-of-B,A: an A/B/B/A run that sizes the machine's drift). {@code -Dacceltriage.bench.postgres=jdbc:…} runs
 * each on a fresh PostgreSQL database of that server instead of the embedded H2. Figures, not
 * pass/fail; written to target/benchmarks/ingest.txt. Run:
 * {@code ./mvnw -B -o verify -Pbenchmark -Dit.test=IngestBenchmark}.
 */
@Tag("benchmark")
class IngestBenchmark {

    static final int STORM = 20_000;
    static final int PACED = 5_000;
    /** The paced rate; -Dacceltriage.bench.ingest.rate=… where the machine cannot take 1,000 alerts/s at all (then it is queueing). */
    static final int PER_SECOND = Integer.getInteger("acceltriage.bench.ingest.rate", 1_000);
    static final int BURST_CONNECTIONS = 32;
    static final int BURST = 8_000;

    @TempDir
    Path work;

    final List<String> report = new ArrayList<>() {
        @Override
        public boolean add(String line) {
            System.out.println(line);
            return super.add(line);
        }
    };

    @Test
    void backlogPacedAckAndMemory() throws Exception {
        String postgres = System.getProperty("acceltriage.bench.postgres", "");
        report.add(String.format(Locale.ROOT, "acceltriage ingest benchmark: packaged service, sandbox, %s, JVM flags %s, environment %s, %d cores",
                postgres.isBlank() ? "embedded H2" : "PostgreSQL", String.join(" ", LoadBenchmark.JVM_FLAGS),
                System.getProperty("acceltriage.bench.env", "-"),
                Runtime.getRuntime().availableProcessors()));
        String before = System.getProperty("acceltriage.bench.before", "");
        if (!before.isBlank()) run("before (" + before + ")", Path.of(before), postgres);
        run("this build", ServiceProcess.JAR, postgres);
        // -Dacceltriage.bench.after=a.jar,b.jar runs those after this build, in that order: with before=A and
        // after=B-copy,A the run is A/B/B/A, so a drift in the machine's load shows as a difference between the two of a build.
        for (String after : System.getProperty("acceltriage.bench.after", "").split(",")) {
            if (!after.isBlank()) run("after (" + after.strip() + ")", Path.of(after.strip()), postgres);
        }
        Path out = Path.of("target/benchmarks/ingest.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, String.join("\n", report) + "\n");
    }

    private void run(String build, Path jar, String postgres) throws Exception {
        Path dir = Files.createDirectories(work.resolve("run-" + report.size()));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ACCELTRIAGE_ALERTMANAGER_TOKEN", Service.WEBHOOK_TOKEN);
        env.put("ACCELTRIAGE_ACCESS_TOKENS", "bench:admin:" + Service.ADMIN_TOKEN);
        env.putAll(Service.extraEnv()); // the deployment's environment beyond the JVM flags, e.g. MALLOC_ARENA_MAX=2
        String database = null;
        if (!postgres.isBlank()) {
            database = "acceltriage_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
            try (Connection c = DriverManager.getConnection(postgres); Statement st = c.createStatement()) {
                st.execute("create database " + database);
            }
            env.put("ACCELTRIAGE_DB_URL", postgres.replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1"));
        }
        ServiceProcess p = ServiceProcess.start(dir, env, LoadBenchmark.JVM_FLAGS, jar).awaitReady(Duration.ofSeconds(180));
        try (Service service = new Service(p, p.sinceStart())) {
            long rssAtRest = service.rssKiB();
            LoadBenchmark.send(service, LoadBenchmark.batches(500, "warmup"), "/api/v1/alerts", 0);
            awaitDrained(service);
            long rssWarm = service.rssKiB();
            AtomicLong peak = new AtomicLong(rssWarm);
            Thread sampler = LoadBenchmark.samplePeakRss(service, peak);

            Run storm = LoadBenchmark.send(service, LoadBenchmark.batches(STORM, "storm"), "/api/v1/alerts", 0);
            long backlog = service.metric("acceltriage_inbox_pending_alerts");
            // While the filer works through that backlog: paced deliveries, and the no-op endpoint at the same rate.
            int perSecond = PER_SECOND / LoadBenchmark.BATCH;
            List<byte[]> paced = LoadBenchmark.batches(PACED, "paced");
            ExecutorService both = Executors.newFixedThreadPool(2);
            Future<Run> ack = both.submit(() -> LoadBenchmark.send(service, paced, "/api/v1/alerts", perSecond));
            Future<Run> health = both.submit(() -> LoadBenchmark.send(service, Collections.nCopies(paced.size(), null), "/q/health/live",
                    perSecond));
            Run ingest = ack.get();
            Run baseline = health.get();
            both.shutdown();
            long backlogAfter = service.metric("acceltriage_inbox_pending_alerts");
            long drainStart = System.nanoTime();
            awaitDrained(service);
            double drained = (System.nanoTime() - drainStart) / 1e9;
            long peakStorm = peak.get();

            Run burst = burst(service, LoadBenchmark.batches(BURST, "burst"));
            String nativeMemory = nativeMemory(p);
            awaitDrained(service);
            sampler.interrupt();
            sampler.join();

            report.add(String.format(Locale.ROOT, "%s: storm of %d alerts flat out at %.0f alerts/s (%d senders, batches of %d) left"
                    + " %d waiting to be filed", build, STORM, STORM / (storm.wallNanos() / 1e9), LoadBenchmark.SENDERS,
                    LoadBenchmark.BATCH, backlog));
            report.add(String.format(Locale.ROOT, "%s: paced %d alerts/s while that backlog was filed (%d waiting when the pacing ended,"
                    + " all filed %.1f s later): ack p50 %.1f ms, p99 %.1f ms; GET /q/health/live at the same rate p50 %.1f ms, p99 %.1f ms"
                    + " (ack = %.1fx the baseline at p99)", build, PER_SECOND, backlogAfter, drained, ingest.millis(0.5), ingest.millis(0.99),
                    baseline.millis(0.5), baseline.millis(0.99), ingest.millis(0.99) / baseline.millis(0.99)));
            report.add(String.format(Locale.ROOT, "%s: burst of %d alerts on %d connections at once: %.0f alerts/s, ack p50 %.1f ms, p99 %.1f ms",
                    build, BURST, BURST_CONNECTIONS, BURST / (burst.wallNanos() / 1e9), burst.millis(0.5), burst.millis(0.99)));
            report.add(String.format(Locale.ROOT, "%s: resident %d MiB at rest, %d MiB warmed up, %d MiB at the storm's peak, %d MiB at the"
                    + " peak of storm and burst", build, rssAtRest / 1024, rssWarm / 1024, peakStorm / 1024, peak.get() / 1024));
            if (!nativeMemory.isEmpty()) report.add(build + ": committed after the burst (-XX:NativeMemoryTracking=summary): " + nativeMemory);
        } finally {
            if (database != null) {
                try (Connection c = DriverManager.getConnection(postgres); Statement st = c.createStatement()) {
                    st.execute("drop database if exists " + database + " with (force)");
                }
            }
        }
    }

    /** The JVM's own account of its committed memory by category, when started with native memory tracking; empty otherwise. */
    private static String nativeMemory(ServiceProcess p) {
        if (LoadBenchmark.JVM_FLAGS.stream().noneMatch(f -> f.startsWith("-XX:NativeMemoryTracking"))) return "";
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(p.pid()),
                    "VM.native_memory", "summary", "scale=MB").redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes());
            jcmd.waitFor();
            List<String> parts = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^(?:-\\s*)?\\s*(Total|[A-Z][A-Za-z ]+?)(?::| \\()\\s*reserved=\\d+MB, committed=(\\d+)MB")
                    .matcher(out);
            while (m.find()) parts.add(m.group(1).strip() + " " + m.group(2));
            return String.join(", ", parts) + " (MiB)";
        } catch (Exception e) {
            return "jcmd failed: " + e.getMessage();
        }
    }

    /** Every body sent by {@value #BURST_CONNECTIONS} senders at once, each sending again as soon as answered. */
    private static Run burst(Service service, List<byte[]> bodies) throws Exception {
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        ExecutorService senders = Executors.newFixedThreadPool(BURST_CONNECTIONS);
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (byte[] body : bodies) {
            futures.add(senders.submit(() -> {
                long t0 = System.nanoTime();
                service.postWebhook(body);
                latencies.add(System.nanoTime() - t0);
                return null;
            }));
        }
        for (Future<?> f : futures) f.get();
        long wall = System.nanoTime() - start;
        senders.shutdown();
        return new Run(latencies, wall, bodies.size());
    }

    private static void awaitDrained(Service service) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(10));
        while (service.metric("acceltriage_inbox_pending_alerts") > 0) {
            if (Instant.now().isAfter(deadline)) throw new AssertionError("the inbox did not drain in 10 minutes\n" + service.logTail());
            Thread.sleep(200);
        }
    }
}
