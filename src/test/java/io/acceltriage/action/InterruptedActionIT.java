package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.FiredAlert;
import io.acceltriage.sandbox.RequestGate;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Json;
import io.acceltriage.testing.ServiceProcess;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * An action interrupted by a crash is neither lost nor applied twice. The cluster runs in this JVM (the
 * simulated API server with its StatefulSet controller, and the node's dcgm-exporter), the packaged
 * service runs against it with a kubeconfig, and a gate on the API server holds the service's DELETE of
 * the pod while the service is killed with SIGKILL: once before the DELETE reached the cluster, once
 * after the cluster applied it. The pod belongs to a StatefulSet, so its replacement has the same name:
 * only the uid recorded when the action was planned tells the two apart.
 */
class InterruptedActionIT {

    static final String NAMESPACE = "research";
    static final String POD = "jupyter-alice-0";
    static final String NODE = "gpu-a100-06";
    static final String DELETE_PATH = "/api/v1/namespaces/" + NAMESPACE + "/pods/" + POD;
    static final String VIEWER = "interrupted-viewer-token-0123456789";
    static final String WEBHOOK = "interrupted-webhook-token";

    /** The simulated API server logs every request through java.util.logging; kept referenced so the level holds. */
    static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    static SimulatedCluster cluster;
    static HttpServer exporter;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path dir;

    @BeforeAll
    static void startCluster() throws IOException {
        MOCK_SERVER_LOG.setLevel(Level.WARNING);
        cluster = SimulatedCluster.start();
        // The node's dcgm-exporter, served from this JVM: the service finds it as it does in a real cluster,
        // by the exporter pod's IP on the node and ACCELTRIAGE_CLUSTER_EXPORTER_PORT.
        exporter = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        exporter.createContext("/metrics", exchange -> {
            byte[] body = cluster.exporterText(NODE).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        exporter.start();
    }

    @AfterAll
    static void stopCluster() {
        if (exporter != null) exporter.stop(0);
        if (cluster != null) cluster.close();
    }

    @BeforeEach
    void freshWorld() {
        cluster.apiServer().gate(null);
        cluster.reset();
        Pod dcgm = cluster.client().pods().inAnyNamespace().withField("spec.nodeName", NODE).list().getItems().stream()
                .filter(p -> p.getMetadata().getName().contains("dcgm-exporter")).findFirst().orElseThrow();
        cluster.client().pods().inNamespace(dcgm.getMetadata().getNamespace()).withName(dcgm.getMetadata().getName())
                .editStatus(p -> {
                    p.getStatus().setPodIP("127.0.0.1");
                    return p;
                });
    }

    @Test
    void anActionKilledBeforeItsDeleteReachedTheClusterIsCarriedOutOnceAfterTheRestart() throws Exception {
        DeleteGate gate = new DeleteGate(true);
        cluster.apiServer().gate(gate);
        String plannedUid = uid();

        ServiceProcess first = start();
        ServiceProcess second = null;
        try {
            killWhileTheDeleteIsHeld(first, gate);
            assertEquals(plannedUid, uid(), "the held DELETE was dropped: the pod is the one planned for");

            second = first.restart();
            second.awaitReady(Duration.ofSeconds(90));
            JsonNode action = awaitFinal(second);

            assertEquals("succeeded", action.path("status").asText(), action.toString());
            assertEquals(2, gate.seen.get(), "one DELETE dropped with the crash, one sent after the restart");
            assertEquals(1, gate.applied.get(), "the pod was deleted exactly once");
            assertNotEquals(plannedUid, uid(), "the StatefulSet replaced the pod");
            assertChainIntact(second);
        } finally {
            first.kill();
            if (second != null) second.close();
        }
    }

    @Test
    void anActionKilledAfterTheClusterAppliedItIsNotAppliedAgainAfterTheRestart() throws Exception {
        DeleteGate gate = new DeleteGate(false);
        cluster.apiServer().gate(gate);
        String plannedUid = uid();

        ServiceProcess first = start();
        ServiceProcess second = null;
        try {
            // The cluster deleted the pod and the StatefulSet recreated it; the service never hears the answer.
            killWhileTheDeleteIsHeld(first, gate);
            String replacementUid = uid();
            assertNotEquals(plannedUid, replacementUid, "the DELETE was applied before the kill");

            second = first.restart();
            second.awaitReady(Duration.ofSeconds(90));
            JsonNode action = awaitFinal(second);

            assertEquals(1, gate.seen.get(), "the restarted service sent no second DELETE: " + action);
            assertEquals(replacementUid, uid(), "the replacement pod was left alone");
            assertTrue(List.of("succeeded", "unverified").contains(action.path("status").asText()), action.toString());
            assertTrue(action.path("detail").asText().contains("already restarted"), action.toString());
            assertChainIntact(second);
        } finally {
            first.kill();
            if (second != null) second.close();
        }
    }

    /** Fires the alert, and kills the service (SIGKILL) while the gate holds its DELETE; then lets the gate go. */
    private void killWhileTheDeleteIsHeld(ServiceProcess service, DeleteGate gate) throws Exception {
        fire(service);
        assertTrue(gate.held.await(60, TimeUnit.SECONDS), "the service never sent the DELETE\n" + service.logTail());
        service.kill();
        gate.release.countDown();
    }

    /** Holds the first DELETE of the pod, before (dropping it) or after the cluster applies it, until released. */
    static final class DeleteGate implements RequestGate {
        final boolean beforeApplying;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger seen = new AtomicInteger();
        final AtomicInteger applied = new AtomicInteger();

        DeleteGate(boolean beforeApplying) {
            this.beforeApplying = beforeApplying;
        }

        private static boolean ours(String method, String path) {
            return method.equals("DELETE") && (path.equals(DELETE_PATH) || path.startsWith(DELETE_PATH + "?"));
        }

        @Override
        public boolean admit(String method, String path) {
            if (!ours(method, path)) return true;
            if (seen.incrementAndGet() == 1 && beforeApplying) {
                hold();
                return false;
            }
            return true;
        }

        @Override
        public void applied(String method, String path, int code) {
            if (!ours(method, path) || code / 100 != 2) return;
            if (applied.incrementAndGet() == 1 && !beforeApplying) hold();
        }

        private void hold() {
            held.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private ServiceProcess start() throws IOException {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: simulated, cluster: {server: "%s"}}]
                users: [{name: tester, user: {}}]
                contexts: [{name: simulated, context: {cluster: simulated, user: tester, namespace: default}}]
                current-context: simulated
                """.formatted(cluster.apiServer().url()));
        // The test policy, but the notebook is a one-replica StatefulSet: keepServingFloor would refuse any restart of it.
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, Files.readString(Path.of("src/test/resources/policies/test.yaml"))
                .replace("keepServingFloor: true", "keepServingFloor: false"));
        return ServiceProcess.start(dir, Map.of(
                "KUBECONFIG", kubeconfig.toString(),
                "ACCELTRIAGE_CLUSTER_MODE", "kubeconfig",
                "ACCELTRIAGE_CLUSTER_EXPORTER_PORT", Integer.toString(exporter.getAddress().getPort()),
                "ACCELTRIAGE_POLICY_FILE", policy.toString(),
                "ACCELTRIAGE_ALERTMANAGER_TOKEN", WEBHOOK,
                "ACCELTRIAGE_ACCESS_TOKENS", "interrupted-test:viewer:" + VIEWER,
                // the same replica after its restart, as a StatefulSet or a supervisor would bring it back
                "POD_NAME", "acceltriage-0",
                "ACCELTRIAGE_ACTIONS_RESUME_EVERY", "1s"))
                .awaitReady(Duration.ofSeconds(90));
    }

    /** A contained ECC error (XID 94) under the notebook: the policy allows restarting its pod. */
    private void fire(ServiceProcess service) {
        FiredAlert alert = cluster.inject(Fault.xid(NODE, 0, 94));
        String payload = Json.write(Map.of("version", "4", "status", "firing", "receiver", "acceltriage",
                "groupKey", "{}:{node=\"" + NODE + "\"}", "alerts", List.of(alert)));
        HttpResponse<String> ack = service.postJson("/api/v1/alerts", WEBHOOK, payload);
        assertEquals(200, ack.statusCode(), ack.body());
    }

    /** The restart-pod action once it left PLANNED. */
    private JsonNode awaitFinal(ServiceProcess service) {
        String body = service.awaitBody("/api/v1/actions", VIEWER, Duration.ofSeconds(30), b -> {
            JsonNode a = restartAction(b);
            return a != null && !List.of("planned", "verifying").contains(a.path("status").asText());
        });
        JsonNode items = Json.read(body, JsonNode.class).path("items");
        assertEquals(1, items.size(), "one action, recorded once: " + body);
        return restartAction(body);
    }

    private static JsonNode restartAction(String body) {
        for (JsonNode a : Json.read(body, JsonNode.class).path("items")) {
            if (a.path("kind").asText().equals("restart-pod") && a.path("target").asText().equals(NAMESPACE + "/" + POD)) return a;
        }
        return null;
    }

    private static void assertChainIntact(ServiceProcess service) {
        String verdict = service.get("/api/v1/audit/verify", VIEWER).body();
        assertTrue(verdict.contains("\"intact\":true"), verdict);
    }

    private static String uid() {
        Pod p = cluster.client().pods().inNamespace(NAMESPACE).withName(POD).get();
        return p == null ? null : p.getMetadata().getUid();
    }
}
