package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.acceltriage.sandbox.SimulatedCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A shadow drill against a real cluster: the packaged jar's {@code drill} command with
 * {@code ACCELTRIAGE_CLUSTER_MODE=kubeconfig} against the fabric8 mock server in CRUD mode, seeded with the
 * sandbox's fleet (nodes, the training gang, serving replicas, the GPU operator) and with the node's
 * dcgm-exporter served from this JVM. Without {@code --shadow} the drill is refused with what to do; with it the
 * drill's alert is delivered without its fault, the incident runs dry, the stage table is printed with the
 * mitigation that would have been done, and not one object of the cluster changed.
 */
class ShadowDrillIT {

    static final String NODE = "gpu-h100-04";
    static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    @Test
    void aShadowDrillAgainstARealClusterTimesEveryStageAndChangesNothing() throws Exception {
        MOCK_SERVER_LOG.setLevel(Level.WARNING);
        Path dir = Files.createTempDirectory("shadow-drill");
        try (SimulatedCluster cluster = SimulatedCluster.start()) {
            HttpServer exporter = exporterOf(cluster);
            try {
                Path kubeconfig = dir.resolve("kubeconfig");
                Files.writeString(kubeconfig, """
                        apiVersion: v1
                        kind: Config
                        clusters: [{name: real, cluster: {server: "%s"}}]
                        users: [{name: tester, user: {}}]
                        contexts: [{name: real, context: {cluster: real, user: tester, namespace: default}}]
                        current-context: real
                        """.formatted(cluster.apiServer().url()));
                List<String> env = List.of("ACCELTRIAGE_DATA_DIR=" + dir.resolve("data"), "KUBECONFIG=" + kubeconfig,
                        "ACCELTRIAGE_CLUSTER_MODE=kubeconfig", "ACCELTRIAGE_CLUSTER_EXPORTER_PORT=" + exporter.getAddress().getPort());
                Map<String, String> before = versions(cluster.client());

                CommandLineIT.Run refused = CommandLineIT.run(dir, env, "drill", "xid79-training-node");
                assertEquals(2, refused.exit(), refused.out() + refused.err());
                assertTrue(refused.err().contains("drill xid79-training-node --shadow"), "says what to do: " + refused.err());

                CommandLineIT.Run nowhere = CommandLineIT.run(dir, env, "drill", "xid79-training-node", "--shadow", "--node", "gpu-nowhere-99");
                assertEquals(2, nowhere.exit(), nowhere.out() + nowhere.err());
                assertTrue(nowhere.err().contains("the cluster has no node 'gpu-nowhere-99'"), nowhere.err());

                // A healthy cluster: the drill's fault is laid over its own incident's evidence as a synthetic reading, so
                // every stage is timed, the would-be cordon included, and nothing changes.
                CommandLineIT.Run healthy = CommandLineIT.run(dir, env, "drill", "xid79-training-node", "--shadow");
                assertTrue(healthy.out().contains("shadow drill xid79-training-node: incident "), healthy.out() + healthy.err());
                assertTrue(healthy.out().matches("(?s).*\\ndecide\\s+\\S+\\s+decided\\s+1m\\s+met.*"), healthy.out());
                assertTrue(healthy.out().matches("(?s).*\\nmitigate \\(dry run\\)\\s+\\S+\\s+device-mitigated\\s+2m\\s+met.*"), healthy.out());
                assertEquals(0, healthy.exit(), healthy.out() + healthy.err());
                assertEquals(before, versions(cluster.client()), "the healthy drill changed nothing");

                // The device really reports XID 79 (the cluster's own readings show it): the responder would cordon the
                // node, and the shadow incident records that as a dry run, timed against the objective.
                cluster.inject(io.acceltriage.sandbox.Fault.xid(NODE, 3, 79));
                Map<String, String> faulted = versions(cluster.client());
                CommandLineIT.Run r = CommandLineIT.run(dir, env, "drill", "xid79-training-node", "--shadow");
                assertTrue(r.out().contains("shadow drill xid79-training-node: incident "), r.out() + r.err());
                assertTrue(r.out().matches("(?s).*stage\\s+took\\s+objective\\s+bound\\s+result.*"), r.out());
                assertTrue(r.out().matches("(?s).*\\ndetect\\s+\\S+\\s+.*"), "detect is timed: " + r.out());
                assertTrue(r.out().matches("(?s).*\\ndecide\\s+\\S+\\s+decided\\s+1m\\s+met.*"), r.out());
                assertTrue(r.out().matches("(?s).*\\nmitigate \\(dry run\\)\\s+\\S+\\s+device-mitigated\\s+2m\\s+met.*"), r.out());
                assertTrue(!r.out().matches("(?s).*\\nverify\\s.*"), "nothing changed, so nothing is verified: " + r.out());
                assertTrue(r.out().contains("nothing in the cluster changed"), r.out());
                assertEquals(0, r.exit(), r.out() + r.err());

                assertEquals(faulted, versions(cluster.client()), "not one object of the cluster changed");
                assertEquals(null, cluster.client().nodes().withName(NODE).get().getSpec().getUnschedulable(), "the node is not cordoned");

                CommandLineIT.Run export = CommandLineIT.run(dir, env, "audit", "export");
                assertEquals(0, export.exit(), export.err());
                String trail = export.out();
                assertTrue(trail.matches("(?s).*\"kind\":\"drill.finished\"[^\\n]*\"mode\":\"shadow\".*"), trail);
                assertTrue(trail.contains("\"kind\":\"dry-run.forced\"") && trail.contains("shadow drill xid79-training-node"), trail);
                assertTrue(trail.contains("drill xid79-training-node (synthetic, not read from the cluster): XID 79 on " + NODE + " GPU 3"),
                        "the synthetic reading is in the audited evidence: " + trail);
                assertTrue(trail.matches("(?s).*\"kind\":\"action.finished\"[^\\n]*\"dryRun\":true.*"), "the cordon ran dry: " + trail);
                assertTrue(!trail.matches("(?s).*\"kind\":\"action.finished\"[^\\n]*\"dryRun\":false.*"), "no action ran for real: " + trail);
            } finally {
                exporter.stop(0);
            }
        }
    }

    /** The node's dcgm-exporter as the service finds it in a cluster: the exporter pod's IP on the node, at the configured port. */
    private static HttpServer exporterOf(SimulatedCluster cluster) throws java.io.IOException {
        HttpServer exporter = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        exporter.createContext("/metrics", exchange -> {
            byte[] body = cluster.exporterText(NODE).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        exporter.start();
        Pod dcgm = cluster.client().pods().inAnyNamespace().withField("spec.nodeName", NODE).list().getItems().stream()
                .filter(p -> p.getMetadata().getName().contains("dcgm-exporter")).findFirst().orElseThrow();
        cluster.client().pods().inNamespace(dcgm.getMetadata().getNamespace()).withName(dcgm.getMetadata().getName()).editStatus(p -> {
            p.getStatus().setPodIP("127.0.0.1");
            return p;
        });
        return exporter;
    }

    /** Every object a mitigation could touch, by kind, namespace and name, with its resourceVersion: any write changes one. */
    private static Map<String, String> versions(KubernetesClient k) {
        Map<String, String> out = new TreeMap<>();
        List<List<? extends HasMetadata>> all = List.of(k.nodes().list().getItems(), k.pods().inAnyNamespace().list().getItems(),
                k.apps().deployments().inAnyNamespace().list().getItems(), k.apps().statefulSets().inAnyNamespace().list().getItems(),
                k.apps().daemonSets().inAnyNamespace().list().getItems(), k.batch().v1().jobs().inAnyNamespace().list().getItems(),
                k.policy().v1().podDisruptionBudget().inAnyNamespace().list().getItems(), k.v1().events().inAnyNamespace().list().getItems());
        for (List<? extends HasMetadata> items : all) {
            for (HasMetadata o : items) {
                out.put(o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o.getMetadata().getResourceVersion());
            }
        }
        assertTrue(out.size() > 50, "the cluster is seeded: " + out.size() + " objects");
        return out;
    }
}
