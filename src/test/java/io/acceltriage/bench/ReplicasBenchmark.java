package io.acceltriage.bench;

import io.acceltriage.testing.ServiceProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decisions per second with 1, 2 and 3 packaged replicas on one PostgreSQL database and one shared
 * simulated cluster (a {@code sandbox} process, as in ReplicasIT): {@value #INCIDENTS} alerts about as
 * many nodes of the sandbox's scale pool, under {@value #NAMES} alert names (below the storm threshold
 * of ten subjects per name, so each is an incident of its own), delivered round-robin at once; the
 * figure is incidents decided (a diagnosis stored) per second from the first delivery to the last
 * decision. The load is honest about what it is: the alert names are not in the catalogue, the nodes
 * have no simulated exporter, so each triage reads the node and its pods from the watched view, finds
 * no device evidence and escalates (no actions). Each replica has one triage worker (parallel triage
 * within a replica is not built yet), so the replicas' claims are what spreads the work.
 *
 * <p>Needs {@code ACCELTRIAGE_TEST_POSTGRES_URL} (or {@code -Dacceltriage.bench.postgres}); written to
 * target/benchmarks/replicas.txt. Run: {@code ./mvnw -B -o verify -Pbenchmark -Dit.test=ReplicasBenchmark}.
 */
@Tag("benchmark")
class ReplicasBenchmark {

    static final int INCIDENTS = Integer.getInteger("acceltriage.bench.replicas.incidents", 120);
    static final int NAMES = INCIDENTS / 8 + 1;
    static final String WEBHOOK = "bench-webhook-token";

    @TempDir
    Path work;

    @Test
    void decisionsPerSecondWithOneTwoAndThreeReplicas() throws Exception {
        String admin = System.getProperty("acceltriage.bench.postgres", System.getenv().getOrDefault("ACCELTRIAGE_TEST_POSTGRES_URL", ""));
        if (admin.isBlank()) throw new AssertionError("set ACCELTRIAGE_TEST_POSTGRES_URL (or -Dacceltriage.bench.postgres): replicas share PostgreSQL");
        List<String> report = new ArrayList<>();
        report.add(String.format(Locale.ROOT, "acceltriage replicas benchmark: %d incidents, packaged services (%s), one PostgreSQL, one shared"
                + " sandbox process, %d cores", INCIDENTS, String.join(" ", LoadBenchmark.JVM_FLAGS), Runtime.getRuntime().availableProcessors()));
        for (int n = 1; n <= 3; n++) {
            report.add(run(n, admin));
            System.out.println(report.get(report.size() - 1));
        }
        Path out = Path.of("target/benchmarks/replicas.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, String.join("\n", report) + "\n");
    }

    private String run(int replicas, String admin) throws Exception {
        String database = "acceltriage_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Connection c = DriverManager.getConnection(admin); Statement st = c.createStatement()) {
            st.execute("create database " + database);
        }
        URI pg = URI.create(admin.substring("jdbc:".length()));
        String url = "jdbc:postgresql://" + pg.getHost() + ":" + pg.getPort() + "/" + database
                + (pg.getRawQuery() == null ? "" : "?" + pg.getRawQuery());
        List<ServiceProcess> started = new ArrayList<>();
        try {
            Path clusterDir = Files.createDirectories(work.resolve("cluster-" + replicas));
            ServiceProcess cluster = ServiceProcess.startCommand(clusterDir, Map.of("ACCELTRIAGE_SANDBOX_SCALE_NODES",
                    Integer.toString(INCIDENTS), "ACCELTRIAGE_SANDBOX_SCALE_PODS", Integer.toString(INCIDENTS * 4)), List.of("sandbox"));
            started.add(cluster);
            cluster.awaitReady(Duration.ofSeconds(300));
            Path kubeconfig = clusterDir.resolve("sandbox-kubeconfig.yaml");
            cluster.await("the sandbox's kubeconfig", Duration.ofSeconds(120), () -> Files.exists(kubeconfig));
            List<ServiceProcess> services = new ArrayList<>();
            for (int r = 0; r < replicas; r++) {
                Map<String, String> env = new LinkedHashMap<>();
                env.put("ACCELTRIAGE_DB_URL", url);
                env.put("ACCELTRIAGE_CLUSTER_MODE", "kubeconfig");
                env.put("KUBECONFIG", kubeconfig.toString());
                env.put("POD_NAME", "replica-" + r);
                env.put("ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK);
                env.put("ACCELTRIAGE_ACCESS_TOKENS", "bench:viewer:bench-viewer-token-0123456789");
                ServiceProcess s = ServiceProcess.start(Files.createDirectories(work.resolve("replicas-" + replicas + "-" + r)), env,
                        LoadBenchmark.JVM_FLAGS);
                started.add(s);
                services.add(s);
            }
            for (ServiceProcess s : services) s.awaitReady(Duration.ofSeconds(400));

            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < INCIDENTS; i++) bodies.add(alert("BenchSignal%02d".formatted(i % NAMES), "scale-gpu-%05d".formatted(i)));
            AtomicInteger next = new AtomicInteger();
            ExecutorService senders = Executors.newFixedThreadPool(4);
            Instant first = Instant.now();
            List<Future<?>> sent = new ArrayList<>();
            for (String body : bodies) {
                sent.add(senders.submit(() -> {
                    ServiceProcess s = services.get(Math.floorMod(next.getAndIncrement(), services.size()));
                    if (s.postJson("/api/v1/alerts", WEBHOOK, body).statusCode() != 200) throw new AssertionError("refused: " + body);
                    return null;
                }));
            }
            for (Future<?> f : sent) f.get();
            senders.shutdown();
            try (Connection db = DriverManager.getConnection(url)) {
                services.get(0).await("every incident decided", Duration.ofMinutes(15), () -> decided(db) >= INCIDENTS);
                long incidents = count(db, "select count(*) from incidents");
                Instant last;
                try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(
                        "select max(at) from audit_log where kind = 'diagnosis'")) {
                    rs.next();
                    last = rs.getTimestamp(1).toInstant();
                }
                double seconds = Duration.between(first, last).toMillis() / 1e3;
                return String.format(Locale.ROOT, "%d replica%s: %d incidents decided in %.1f s = %.1f decisions/s (first delivery to"
                        + " last diagnosis)", replicas, replicas == 1 ? "" : "s", incidents, seconds, incidents / seconds);
            }
        } finally {
            started.forEach(ServiceProcess::close);
            try (Connection c = DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("drop database if exists " + database + " with (force)");
            }
        }
    }

    private static long decided(Connection db) {
        try {
            return count(db, "select count(distinct incident_id) from audit_log where kind = 'diagnosis'");
        } catch (Exception notYet) {
            return 0;
        }
    }

    private static long count(Connection db, String sql) throws Exception {
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String alert(String name, String node) {
        String fingerprint = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return """
                {"version":"4","groupKey":"{}:{bench=\\"%s\\"}","status":"firing","receiver":"acceltriage","alerts":[
                 {"status":"firing","labels":{"alertname":"%s","node":"%s","severity":"warning"},"annotations":{"summary":"%s on %s"},
                  "startsAt":"2026-12-01T10:00:00Z","endsAt":"0001-01-01T00:00:00Z","fingerprint":"%s"}]}
                """.formatted(fingerprint, name, node, name, node, fingerprint);
    }
}
