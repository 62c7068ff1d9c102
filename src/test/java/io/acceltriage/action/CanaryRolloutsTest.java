package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.config.DataFiles;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The canary rule against the simulated cluster: a new dcgm-exporter revision is held at OnDelete, its first
 * two nodes run it and their DCGM diagnostics decide; a good revision is released and rolls on, a broken one
 * stays held with DCGM's words and is not tried again.
 */
class CanaryRolloutsTest {

    static final String EXPORTER = "nvidia-dcgm-exporter";
    static final String GOOD = "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.4-ubuntu22.04";

    SimulatedCluster cluster;
    KubernetesClient client;
    Database database;
    AuditLog audit;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        database = TestDatabases.h2();
        audit = TestAudit.on(database);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    static Policy canary(String agents) {
        return Policy.parse("c.yaml", ("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                rollouts:
                  canary: {agents: %s, nodes: 2, level: 1, timeout: 30s}
                """.formatted(agents)).getBytes(StandardCharsets.UTF_8));
    }

    CanaryRollouts rollouts(Policy p) {
        return new CanaryRollouts(client, NodeAgents.load(), audit, () -> p, MitigationsTest.FAST);
    }

    @Test
    void aGoodRevisionIsHeldUntilItsTwoCanariesPassedTheDiagnosticThenReleased() {
        CanaryRollouts canaries = rollouts(canary("[exporter]"));
        assertTrue(canaries.step().isEmpty(), "no rollout, nothing to decide");
        String hash = String.valueOf(cluster.rollOut(EXPORTER, GOOD, false).get("hash"));

        List<RolloutCanary> ended = canaries.step();

        assertEquals(1, ended.size(), ended.toString());
        RolloutCanary c = ended.get(0);
        assertTrue(c.released(), c.toString());
        assertEquals("gpu-operator/" + EXPORTER, c.daemonSet());
        assertEquals(hash, c.revision());
        assertEquals(2, c.nodes().size(), c.toString());
        DaemonSet ds = exporter();
        assertEquals("RollingUpdate", ds.getSpec().getUpdateStrategy().getType(), "released: the rollout goes on");
        assertEquals(hash, ds.getMetadata().getAnnotations().get(CanaryRollouts.PASSED));
        assertFalse(ds.getMetadata().getAnnotations().containsKey(PauseRollout.PAUSED_FROM));
        List<String> kinds = TestAudit.reader(database).find(new io.acceltriage.audit.AuditQuery(null, null, null, null, null, null, null, 100)).stream()
                .map(r -> r.kind().wireName()).toList();
        assertEquals(List.of("rollout.held", "rollout.canary", "rollout.canary", "rollout.released"), kinds);
        assertTrue(MitigationsTest.FAST.until(Duration.ofSeconds(20), () -> onRevision(hash) > 3),
                "the released rollout goes past its canaries: " + onRevision(hash) + " of " + pods().size());
        assertTrue(canaries.step().isEmpty(), "a revision let through is not held again");
    }

    @Test
    void aBrokenRevisionStaysHeldAtItsCanariesWithTheDiagnosticsOwnWordsAndIsNotTriedAgain() {
        CanaryRollouts canaries = rollouts(canary("[exporter, device-plugin]"));
        String hash = String.valueOf(cluster.rollOut(EXPORTER, GOOD, true).get("hash"));

        List<RolloutCanary> ended = canaries.step();

        assertEquals(1, ended.size(), ended.toString());
        RolloutCanary c = ended.get(0);
        assertFalse(c.released());
        assertEquals(2, c.failures().size(), c.toString());
        assertTrue(c.failures().get(0).contains("dcgmi diag -r 1: software (Deployment) failed on GPU 0, GPU 1, GPU 2, GPU 3, GPU 4, GPU 5, GPU 6, GPU 7: Error calling NVML API nvmlInit:"
                + " Driver/library version mismatch"), c.failures().get(0));
        DaemonSet ds = exporter();
        assertEquals("OnDelete", ds.getSpec().getUpdateStrategy().getType(), "held");
        assertEquals(hash, ds.getMetadata().getAnnotations().get(CanaryRollouts.FAILED));
        assertTrue(ds.getMetadata().getAnnotations().get(CanaryRollouts.MESSAGE).contains("Driver/library version mismatch"));
        int updated = onRevision(hash);
        assertTrue(updated >= 2 && updated <= 3, "the canaries, and at most the node the rolling update reached first: " + updated);
        sleep(2500);
        assertEquals(updated, onRevision(hash), "nothing more rolls while held");
        assertTrue(canaries.step().isEmpty(), "a failed revision is not tried again");
        assertEquals("OnDelete", exporter().getSpec().getUpdateStrategy().getType());
    }

    @Test
    void onlyTheWatchedRolesAreHeldAndAnInstallOrAFinishedRolloutIsNot() {
        Policy devicePluginOnly = canary("[device-plugin]");
        cluster.rollOut(EXPORTER, GOOD, false);
        assertTrue(rollouts(devicePluginOnly).step().isEmpty());
        assertEquals("RollingUpdate", exporter().getSpec().getUpdateStrategy().getType(), "the exporter is not watched");
        assertTrue(rollouts(null).step().isEmpty(), "no policy, no canary");
        // the seeded device plugin has one revision, its install: recorded as passed, never held
        assertTrue(rollouts(devicePluginOnly).step().isEmpty());
        DaemonSet plugin = client.apps().daemonSets().inNamespace("gpu-operator").withName("nvidia-device-plugin-daemonset").get();
        assertEquals("RollingUpdate", plugin.getSpec().getUpdateStrategy().getType());
        assertEquals("6b8c7d9f54", plugin.getMetadata().getAnnotations().get(CanaryRollouts.PASSED));
    }

    @Test
    void aCanaryOfAnUnknownRoleIsRefusedWithTheFileAndLine() {
        var e = assertThrows(DataFiles.InvalidDataFile.class, () -> canary("[gpu-driver]"));
        assertTrue(e.getMessage().startsWith("c.yaml:4: rollouts.canary.agents: 'gpu-driver' is not a node-agent role"), e.getMessage());
        var n = assertThrows(DataFiles.InvalidDataFile.class, () -> Policy.parse("n.yaml", """
                apiVersion: acceltriage.io/v1
                kind: Policy
                rollouts:
                  canary: {agents: [driver], nodes: 0}
                """.getBytes(StandardCharsets.UTF_8)));
        assertTrue(n.getMessage().contains("rollouts.canary.nodes must be 1 to 100, got 0"), n.getMessage());
    }

    private DaemonSet exporter() {
        return client.apps().daemonSets().inNamespace("gpu-operator").withName(EXPORTER).get();
    }

    private List<Pod> pods() {
        return client.pods().inNamespace("gpu-operator").withLabel("app", EXPORTER).list().getItems();
    }

    private int onRevision(String hash) {
        return (int) pods().stream().filter(p -> hash.equals(p.getMetadata().getLabels().get("controller-revision-hash"))).count();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
