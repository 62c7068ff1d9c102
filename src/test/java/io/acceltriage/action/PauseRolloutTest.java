package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * pause-rollout against the simulated cluster, through the executor: the sandbox's device plugin is
 * mid-rollout (its revision 2 reached two nodes, whose plugins crash), the rollout is held at
 * OnDelete and read back, and undo gives the DaemonSet back its RollingUpdate with its parameters.
 */
class PauseRolloutTest {

    static final String DAEMON_SET = "gpu-operator/nvidia-device-plugin-daemonset";

    SimulatedCluster cluster;
    KubernetesClient client;
    Executor executor;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        Database database = TestDatabases.h2();
        executor = new Executor(client, database, TestAudit.on(database), Leadership.ALWAYS, MitigationsTest.FAST, () -> null);
        cluster.inject(new Fault("device-plugin-rollout", "gpu-h100-01", null, null, null));
        cluster.inject(new Fault("device-plugin-rollout", "gpu-h100-02", null, null, null));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    DaemonSet plugin() {
        return client.apps().daemonSets().inNamespace("gpu-operator").withName("nvidia-device-plugin-daemonset").get();
    }

    ActionRecord run(String target, boolean dryRun) {
        return executor.carryOut("inc-" + UUID.randomUUID().toString().substring(0, 8),
                new Proposal(ActionKind.PAUSE_ROLLOUT, target, "test", List.of(), "test"),
                new Verdict(Decision.ALLOW, "test", List.of("test"), dryRun));
    }

    @Test
    void theRolloutIsHeldAtOnDeleteVerifiedAndUndoResumesItsRollingUpdate() {
        assertEquals("nvcr.io/nvidia/k8s-device-plugin:v0.18.0",
                plugin().getSpec().getTemplate().getSpec().getContainers().get(0).getImage(), "the sandbox rolled the plugin out");

        ActionRecord paused = run(DAEMON_SET, false);

        assertEquals(ActionStatus.SUCCEEDED, paused.status(), paused.detail());
        assertTrue(paused.detail().contains("verified: DaemonSet " + DAEMON_SET + " has updateStrategy OnDelete"), paused.detail());
        assertEquals("OnDelete", plugin().getSpec().getUpdateStrategy().getType());
        assertTrue(plugin().getMetadata().getAnnotations().get(PauseRollout.PAUSED_FROM).contains("RollingUpdate"),
                "the old strategy is kept: " + plugin().getMetadata().getAnnotations());

        ActionRecord undone = executor.undo(paused.id(), "alice");

        assertEquals(ActionStatus.UNDONE, undone.status(), undone.detail());
        assertEquals("RollingUpdate", plugin().getSpec().getUpdateStrategy().getType());
        assertEquals(1, plugin().getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable().getIntVal(),
                "the old strategy's parameters come back too");
        assertNull(plugin().getMetadata().getAnnotations() == null ? null
                : plugin().getMetadata().getAnnotations().get(PauseRollout.PAUSED_FROM));
    }

    @Test
    void aRolloutPausedAlreadyIsLeftAsItIs() {
        run(DAEMON_SET, false);
        String kept = plugin().getMetadata().getAnnotations().get(PauseRollout.PAUSED_FROM);

        ActionRecord again = run(DAEMON_SET, false);

        assertEquals(ActionStatus.SUCCEEDED, again.status(), again.detail());
        assertTrue(again.detail().contains("already paused"), again.detail());
        assertEquals(kept, plugin().getMetadata().getAnnotations().get(PauseRollout.PAUSED_FROM), "the first pause's record stays");
    }

    @Test
    void aDryRunChangesNothing() {
        ActionRecord dry = run(DAEMON_SET, true);

        assertTrue(dry.detail().contains("dry run: would pause"), dry.detail());
        assertEquals("RollingUpdate", plugin().getSpec().getUpdateStrategy().getType());
    }

    @Test
    void aDaemonSetThatDoesNotExistFailsItsPrecondition() {
        ActionRecord r = run("gpu-operator/nvidia-driver-daemonset", false);

        assertTrue(r.status() == ActionStatus.FAILED || r.status() == ActionStatus.SKIPPED, r.status() + ": " + r.detail());
        assertTrue(r.detail().contains("does not exist"), r.detail());
    }
}
