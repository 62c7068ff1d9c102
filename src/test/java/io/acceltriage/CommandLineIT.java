package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.ServiceProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The packaged command line as a newcomer meets it: usage without a service, and a bad policy said in one line. */
class CommandLineIT {

    record Run(int exit, String out, String err, long millis) {}

    static Run run(Path workDir, List<String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ServiceProcess.JAR.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
        for (String kv : env) {
            String[] p = kv.split("=", 2);
            pb.environment().put(p[0], p[1]);
        }
        Path out = Files.createTempFile("cli", ".out");
        Path err = Files.createTempFile("cli", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        long start = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("acceltriage " + String.join(" ", args) + " did not exit within 120 s");
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), millis);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void helpOnEveryCommandPrintsUsageAndExitsWithoutStartingTheService() throws Exception {
        Path dir = Files.createTempDirectory("cli-help");
        int port = freePort();
        List<String> env = List.of("ACCELTRIAGE_PORT=" + port, "ACCELTRIAGE_DATA_DIR=" + dir.resolve("data"));
        String[][] asks = {{"--help"}, {"help"}, {"serve", "--help"}, {"eval", "--help"}, {"audit", "--help"},
                {"audit", "verify", "--help"}, {"audit", "export", "-h"}, {"audit", "prune", "--help"}, {"capture", "--help"},
                {"help", "capture"}, {"investigate", "--help"}, {"help", "investigate"}, {"drill", "--help"}, {"help", "drill"}, {"--version"}};
        for (String[] ask : asks) {
            Run r = run(dir, env, ask);
            String what = String.join(" ", ask);
            assertEquals(0, r.exit(), what + " exits 0: " + r.err());
            assertTrue(r.out().contains("Usage: acceltriage") || r.out().startsWith("acceltriage 0."), what + ": " + r.out());
            assertFalse(r.out().contains("admin token") || r.err().contains("admin token"), what + " prints no token");
            assertFalse(r.err().contains("Flyway") || r.out().contains("Listening on"), what + " starts nothing: " + r.err());
            // Generous for a shared 2-core machine; a service start takes several seconds more than this.
            assertTrue(r.millis() < 5_000, what + " took " + r.millis() + " ms");
        }
        assertFalse(listening(port), "no port was opened");
        assertFalse(Files.exists(dir.resolve("data")), "no store was created");
    }

    @Test
    void aPolicyWithATypoStopsTheStartWithOneLineNamingFileLineAndReason() throws Exception {
        Path dir = Files.createTempDirectory("cli-policy");
        String policy = Files.readString(Path.of("policies/default.yaml")).replaceFirst("(?m)^approvers:", "aprovers:");
        Path bad = dir.resolve("typo.yaml");
        Files.writeString(bad, policy);
        long line = policy.lines().takeWhile(l -> !l.startsWith("aprovers:")).count() + 1;
        int port = freePort();
        Run r = run(dir, List.of("ACCELTRIAGE_PORT=" + port, "ACCELTRIAGE_POLICY_FILE=" + bad, "ACCELTRIAGE_DATA_DIR=" + dir.resolve("data")));
        assertNotEquals(0, r.exit(), "a bad policy is a failed start");
        List<String> said = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, said.size(), "one line, not a stack trace: " + r.err());
        assertTrue(said.get(0).contains(bad + ":" + line + ":") && said.get(0).contains("aprovers"), said.get(0));
        assertFalse(listening(port), "the listener never opened");
    }

    @Test
    void theOfflineCommandsSayTheirResultsAndNothingElse() throws Exception {
        Path dir = Files.createTempDirectory("cli-offline");
        List<String> env = List.of("ACCELTRIAGE_DATA_DIR=" + dir.resolve("data"));
        Run verify = run(Path.of("").toAbsolutePath(), env, "audit", "verify");
        assertEquals(0, verify.exit(), verify.err());
        assertEquals("audit log intact: 0 records", verify.out().strip());
        assertTrue(verify.err().isBlank(), "no token, no migration warning: " + verify.err());

        // Eleven scenarios: one more than the progress interval, and quick on a loaded machine.
        Path some = Files.createDirectories(dir.resolve("scenarios"));
        try (var files = Files.list(Path.of("src/test/resources/scenarios"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".yaml")).sorted().limit(11).toList()) {
                Files.copy(f, some.resolve(f.getFileName()));
            }
        }
        Run eval = run(Path.of("").toAbsolutePath(), env, "eval", some.toString());
        assertEquals(0, eval.exit(), eval.out());
        assertTrue(eval.err().contains("eval: 10/") && eval.err().contains(" replayed ("), "a long replay shows progress: " + eval.err());
        assertFalse(eval.err().contains("admin token"), eval.err());
        assertTrue(eval.out().strip().endsWith(" passed, 0 failed"), "the report itself stays on standard output");
        assertTrue(eval.out().lines().anyMatch(l -> l.matches("expected\\s+total\\s+passed\\s+family wrong\\s+proposals wrong")),
                "a table of outcomes per expected family: " + eval.out());
    }
}
