package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.scenario.Capture;
import io.acceltriage.testing.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command-line tools against a running service's sandbox, each as a second process of the packaged
 * jar: the sandbox writes a kubeconfig into its data folder at start; {@code investigate} triages
 * through it and acts on nothing; {@code capture} snapshots that sandbox (not a fresh one of its own)
 * or refuses clearly when there is none; {@code eval} fails a captured scenario whose expectation is
 * still the placeholder.
 */
class InvestigateIT {

    static final Duration BOUND = Duration.ofSeconds(120);
    static final Pattern TOKEN_PRINTED = Pattern.compile("generated an admin token for this run: ([0-9a-f]{16,})");

    @TempDir
    static Path dir;

    static ServiceProcess service;
    static String token;
    static Path kubeconfig;

    record Run(int exit, String out, String err) {}

    @BeforeAll
    static void startServiceWithAFault() throws Exception {
        service = ServiceProcess.start(dir, Map.of());
        service.awaitReady(Duration.ofMinutes(3));
        Matcher printed = TOKEN_PRINTED.matcher(Files.readString(dir.resolve("service.log")));
        assertTrue(printed.find(), service.logTail());
        token = printed.group(1);
        kubeconfig = dir.resolve("sandbox-kubeconfig.yaml");
        service.await("the sandbox's kubeconfig in the data folder", BOUND, () -> Files.isRegularFile(kubeconfig));
        service.await("the kubeconfig's path in the log", BOUND, () -> readLog().contains("kubeconfig of its simulated API server written to " + kubeconfig));
        assertEquals(202, service.postJson("/api/v1/sandbox/faults", token,
                "{\"kind\":\"xid\",\"node\":\"gpu-h100-04\",\"gpu\":1,\"xid\":48}").statusCode());
        // the service's own response settles first: what it did is then the state investigate must not change
        service.awaitBody("/api/v1/actions?status=awaiting_approval", token, BOUND, b -> b.contains("gpu-h100-04/1"));
    }

    @AfterAll
    static void stop() {
        if (service != null) service.close();
    }

    @Test
    void investigateTriagesTheRunningSandboxThroughItsKubeconfigAndActsOnNothing() throws Exception {
        String before = state();
        Path data = dir.resolve("investigate-data");
        Run r = jar(List.of("ACCELTRIAGE_DATA_DIR=" + data), "investigate", "--kubeconfig", kubeconfig.toString(), "--node", "gpu-h100-04");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("investigate node:gpu-h100-04"), r.out());
        assertTrue(r.out().contains("nothing was acted on or stored"), r.out());
        assertTrue(r.out().contains("diagnosis: device"), r.out());
        assertTrue(r.out().contains("XID 48"), "the diagnosis cites the XID read from the running sandbox's exporter:\n" + r.out());
        assertTrue(r.out().contains("evidence:\n  E"), r.out());
        assertTrue(r.out().contains("reset-gpu:gpu-h100-04/1 -> approve"), "what policy would do:\n" + r.out());
        assertFalse(r.out().contains("could not read:\n  metrics"), "the exporter was read:\n" + r.out());
        assertEquals(before, state(), "investigate changed the service's actions, incidents, audit or nodes");
        assertFalse(Files.exists(data), "investigate made a data folder: it stores nothing");
    }

    @Test
    void investigateSaysWhatIsWrongWithExitStatusOneOrTwo() throws Exception {
        Run none = jar(List.of(), "investigate", "--kubeconfig", dir.resolve("no-such-kubeconfig").toString(), "--node", "gpu-h100-04");
        assertEquals(2, none.exit(), none.err());
        assertTrue(none.err().contains("no kubeconfig"), none.err());
        Run badName = jar(List.of(), "investigate", "--kubeconfig", kubeconfig.toString(), "--pod", "not/a/pod");
        assertEquals(2, badName.exit(), badName.err());
        Run missing = jar(List.of(), "investigate", "--kubeconfig", kubeconfig.toString(), "--node", "gpu-nowhere-99");
        assertEquals(1, missing.exit(), missing.out() + missing.err());
        assertTrue(missing.err().contains("no node:gpu-nowhere-99 in the cluster"), missing.err());
    }

    @Test
    void captureSnapshotsTheRunningSandboxAndEvalFailsItsPlaceholderExpectation() throws Exception {
        Path scenario = dir.resolve("captured.yaml");
        // sandbox mode with the service's data folder: the running sandbox, found through its kubeconfig
        Run c = jar(List.of("ACCELTRIAGE_DATA_DIR=" + dir), "capture", "--node", "gpu-h100-04", "-o", scenario.toString());
        assertEquals(0, c.exit(), c.out() + c.err());
        String text = Files.readString(scenario);
        // a fresh sandbox would show all 8 GPUs allocatable and the node schedulable; the running one has the fault
        assertTrue(Pattern.compile("DCGM_FI_DEV_XID_ERRORS\\{[^}]*gpu=\"1\"[^}]*\\} 48").matcher(text).find(),
                "the running sandbox's XID 48 on GPU 1 is in the capture");
        assertTrue(text.contains("unschedulable: true"), "the service's cordon of gpu-h100-04 is in the capture");
        assertTrue(text.contains(Capture.PLACEHOLDER), text);

        Run e = jar(List.of(), "eval", scenario.toString());
        assertEquals(1, e.exit(), e.out() + e.err());
        assertTrue(e.out().contains("FAIL captured.yaml: its expectation is still capture's placeholder; fill in spec.expect"), e.out());
        assertTrue(e.out().contains("0 passed, 1 failed"), e.out());
    }

    @Test
    void captureInSandboxModeWithoutARunningServiceRefuses() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("no-service"));
        Run c = jar(List.of("ACCELTRIAGE_DATA_DIR=" + empty), "capture", "--node", "gpu-h100-04");
        assertEquals(1, c.exit(), c.out() + c.err());
        assertTrue(c.err().contains("captures the running service's sandbox, and there is none"), c.err());
        assertTrue(c.out().isEmpty(), "nothing captured from a sandbox of its own: " + c.out());
    }

    /** The service's visible state: what investigate must leave as it was. */
    static String state() {
        return service.get("/api/v1/actions", token).body() + service.get("/api/v1/incidents", token).body()
                + service.get("/api/v1/audit?limit=500", token).body() + service.get("/api/v1/sandbox/nodes", token).body();
    }

    static String readLog() {
        try {
            return Files.readString(dir.resolve("service.log"));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** The packaged jar as a second process, in its own working folder (so its default data folder is not the service's). */
    static Run jar(List<String> env, String... args) throws Exception {
        Path work = Files.createDirectories(dir.resolve("cli"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ServiceProcess.JAR.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile());
        pb.environment().remove("KUBECONFIG");
        pb.environment().put("ACCELTRIAGE_DATA_DIR", dir.resolve("cli-data").toString());
        pb.environment().put("ACCELTRIAGE_POLICY_FILE", Path.of("policies/default.yaml").toAbsolutePath().toString());
        for (String kv : env) {
            String[] p = kv.split("=", 2);
            pb.environment().put(p[0], p[1]);
        }
        Path out = Files.createTempFile(work, "cli", ".out");
        Path err = Files.createTempFile(work, "cli", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("acceltriage " + String.join(" ", args) + " did not exit within 180 s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
