package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each mitigation against the simulated cluster (a fabric8 mock API server in CRUD mode with the
 * ReplicaSet, Job and StatefulSet controllers and PodDisruptionBudget-aware eviction), carried out
 * through the executor: preconditions, idempotency, verification and undo.
 */
class MitigationsTest {

    static final Timing FAST = new Timing(Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(3), Duration.ofMillis(50));

    SimulatedCluster cluster;
    KubernetesClient client;
    Database database;
    AuditLog audit;
    Executor executor;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        database = TestDatabases.h2();
        audit = TestAudit.on(database);
        executor = new Executor(client, database, audit, Leadership.ALWAYS, FAST, () -> null);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    static Verdict allow() {
        return new Verdict(Decision.ALLOW, "test", List.of("test"), false);
    }

    static Proposal proposal(ActionKind kind, String target) {
        return new Proposal(kind, target, "test", List.of(), "test");
    }

    ActionRecord run(ActionKind kind, String target) {
        return executor.carryOut("inc-" + UUID.randomUUID().toString().substring(0, 8), proposal(kind, target), allow());
    }

    boolean cordoned(String node) {
        return Boolean.TRUE.equals(client.nodes().withName(node).get().getSpec().getUnschedulable());
    }

    List<Pod> podsOn(String node) {
        return client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    }

    int auditCount(String kind) {
        return database.read(c -> {
            try (var ps = c.prepareStatement("select count(*) from audit_log where kind = ?")) {
                ps.setString(1, kind);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    @Test
    void theSameCordonDeliveredTwiceIsAppliedOnceAndUndoUncordons() {
        Proposal p = proposal(ActionKind.CORDON_NODE, "gpu-h100-01");
        ActionRecord first = executor.carryOut("inc-1", p, allow());
        ActionRecord second = executor.carryOut("inc-1", p, allow());
        assertEquals(first.id(), second.id());
        assertEquals(ActionStatus.SUCCEEDED, first.status(), first.detail());
        assertTrue(first.detail().contains("verified: node gpu-h100-01 is unschedulable"), first.detail());
        assertEquals(1, auditCount("action.started"));
        assertTrue(cordoned("gpu-h100-01"));

        ActionRecord undone = executor.undo(first.id(), "alice");
        assertEquals(ActionStatus.UNDONE, undone.status());
        assertFalse(cordoned("gpu-h100-01"));
    }

    @Test
    void cordonAddsThePolicysTaintAndUndoRemovesIt() {
        Policy training = Policy.load("policies/training.yaml");
        executor = new Executor(client, database, audit, Leadership.ALWAYS, FAST, () -> training);
        ActionRecord r = run(ActionKind.CORDON_NODE, "gpu-h100-02");
        Node n = client.nodes().withName("gpu-h100-02").get();
        assertTrue(n.getSpec().getTaints().stream().anyMatch(t -> t.getKey().equals("acceltriage.io/faulty-accelerator")), r.detail());
        executor.undo(r.id(), "alice");
        Node after = client.nodes().withName("gpu-h100-02").get();
        assertTrue(after.getSpec().getTaints() == null
                || after.getSpec().getTaints().stream().noneMatch(t -> t.getKey().equals("acceltriage.io/faulty-accelerator")));
    }

    @Test
    void aRestartPodResumedAfterACrashDoesNotDeleteThePodsReplacement() {
        // A follower plans the restart (recording the pod's uid) but cannot act: the state a crash leaves behind.
        Executor follower = new Executor(client, database, audit, () -> false, FAST, () -> null);
        ActionRecord planned = follower.carryOut("inc-2", proposal(ActionKind.RESTART_POD, "research/jupyter-alice-0"), allow());
        assertEquals(ActionStatus.PLANNED, planned.status());
        String plannedUid = planned.subjectUid();
        assertTrue(plannedUid != null);
        // Someone (or the crashed process) restarted it already; the StatefulSet recreated it under the same name.
        client.pods().inNamespace("research").withName("jupyter-alice-0").delete();
        String replacement = client.pods().inNamespace("research").withName("jupyter-alice-0").get().getMetadata().getUid();
        assertNotEquals(plannedUid, replacement);

        assertEquals(1, executor.resumePlanned());
        ActionRecord done = executor.find(planned.id()).orElseThrow();
        assertEquals(ActionStatus.SUCCEEDED, done.status(), done.detail());
        assertTrue(done.detail().contains("already restarted"), done.detail());
        assertEquals(replacement, client.pods().inNamespace("research").withName("jupyter-alice-0").get().getMetadata().getUid());
    }

    @Test
    void anActionACrashLeftVerifyingIsCheckedByTheLeaderAndNeverRunAgain() {
        Executor follower = new Executor(client, database, audit, () -> false, FAST, () -> null);
        ActionRecord planned = follower.carryOut("inc-3", proposal(ActionKind.RESTART_POD, "research/jupyter-alice-0"), allow());
        // The crashed leader deleted the pod and stored VERIFYING; its check never finished.
        client.pods().inNamespace("research").withName("jupyter-alice-0").delete();
        String replacement = client.pods().inNamespace("research").withName("jupyter-alice-0").get().getMetadata().getUid();
        database.transaction(tx -> executor.store().update(tx, planned, ActionStatus.VERIFYING, planned.detail() + "; deleted the pod"));

        assertEquals(1, executor.resumePlanned());

        ActionRecord done = executor.find(planned.id()).orElseThrow();
        assertEquals(ActionStatus.SUCCEEDED, done.status(), done.detail());
        assertTrue(done.detail().contains("; verified: "), done.detail());
        assertEquals(replacement, client.pods().inNamespace("research").withName("jupyter-alice-0").get().getMetadata().getUid(),
                "the replacement was not deleted: the action ran once");
    }

    @Test
    void aRestartPodDeletesAControlledPodAndVerifiesItsReplacement() {
        Pod vllm = podsOn("gpu-a100-03").stream().filter(p -> p.getMetadata().getName().startsWith("vllm-llama")).findFirst().orElseThrow();
        ActionRecord r = run(ActionKind.RESTART_POD, "serve/" + vllm.getMetadata().getName());
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains("replaced by its controller"), r.detail());
    }

    @Test
    void aRestartPlannedWhileThePodCouldNotBeReadDeletesNothingWhenResumed() {
        Pod vllm = podsOn("gpu-a100-04").stream().filter(p -> p.getMetadata().getName().startsWith("vllm-llama")).findFirst().orElseThrow();
        String target = "serve/" + vllm.getMetadata().getName();
        // What a crash leaves when the uid could not be captured at planning: a PLANNED row without it.
        ActionRecord planned = database.transaction(tx -> executor.store().insert(tx, "inc-nouid|restart-pod:" + target, "inc-nouid",
                ActionKind.RESTART_POD, target, Decision.ALLOW, ActionStatus.PLANNED, false, "test", null));
        ActionRecord r = executor.resume(planned);
        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("cannot be told from a replacement"), r.detail());
        assertEquals(vllm.getMetadata().getUid(),
                client.pods().inNamespace("serve").withName(vllm.getMetadata().getName()).get().getMetadata().getUid());
    }

    @Test
    void aBarePodIsNeverRestarted() {
        client.pods().inNamespace("research").resource(new PodBuilder().withNewMetadata().withName("bare").withNamespace("research")
                .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().build()).create();
        ActionRecord r = run(ActionKind.RESTART_POD, "research/bare");
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().startsWith("precondition pod-has-controller: pod research/bare has no controller"), r.detail());
        assertTrue(client.pods().inNamespace("research").withName("bare").get() != null);
    }

    @Test
    void aDrainEvictsWorkloadPodsAndLeavesDaemonSetPods() {
        List<Pod> before = podsOn("gpu-a100-03");
        long daemons = before.stream().filter(Pods::ownedByDaemonSet).count();
        assertTrue(daemons > 0 && before.size() > daemons, "the node runs DaemonSet and workload pods: " + before.size());
        ActionRecord r = run(ActionKind.DRAIN_NODE, "gpu-a100-03");
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(cordoned("gpu-a100-03"));
        List<Pod> after = podsOn("gpu-a100-03");
        assertEquals(daemons, after.size(), "only DaemonSet pods stay: " + after.stream().map(Pods::ref).toList());
    }

    @Test
    void aDrainThatAPodDisruptionBudgetBlocksFailsAfterItsTimeoutAndSaysWhich() {
        client.policy().v1().podDisruptionBudget().inNamespace("serve").withName("vllm-llama")
                .edit(p -> new PodDisruptionBudgetBuilder(p).editSpec().withNewMinAvailable(3).endSpec()
                        .editStatus().withDesiredHealthy(3).withDisruptionsAllowed(0).endStatus().build());
        long started = System.nanoTime();
        ActionRecord r = run(ActionKind.DRAIN_NODE, "gpu-a100-04");
        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("PodDisruptionBudgets still block serve/vllm-llama"), r.detail());
        assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(FAST.evictionTimeout()) >= 0, "it waited for the budget");
        assertTrue(podsOn("gpu-a100-04").stream().anyMatch(p -> p.getMetadata().getName().startsWith("vllm-llama")));
    }

    @Test
    void aShiftMovesTheReplicaOffTheFencedNodeAndScalesBack() {
        run(ActionKind.CORDON_NODE, "gpu-a100-05");
        ActionRecord r = run(ActionKind.SHIFT_REPLICAS, "serve/vllm-llama");
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(podsOn("gpu-a100-05").stream().noneMatch(p -> p.getMetadata().getName().startsWith("vllm-llama")));
        assertEquals(3, client.apps().deployments().inNamespace("serve").withName("vllm-llama").get().getSpec().getReplicas());
        assertTrue(r.detail().contains("Ready on healthy nodes"), r.detail());
    }

    @Test
    void aShiftBeforeTheNodeIsFencedDoesNothing() {
        ActionRecord r = run(ActionKind.SHIFT_REPLICAS, "serve/vllm-llama");
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("precondition replica-on-fenced-node"), r.detail());
    }

    @Test
    void aGangRestartsWholeAndRunsAgain() {
        Map<String, String> gang = Map.of("jobset.sigs.k8s.io/jobset-name", "llm-pretrain");
        List<String> before = client.pods().inNamespace("ml").withLabels(gang).list().getItems().stream().map(p -> p.getMetadata().getUid()).toList();
        assertEquals(4, before.size());
        ActionRecord r = run(ActionKind.RESTART_GROUP, "ml/llm-pretrain");
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        List<String> after = client.pods().inNamespace("ml").withLabels(gang).list().getItems().stream().map(p -> p.getMetadata().getUid()).toList();
        assertEquals(4, after.size());
        assertTrue(after.stream().noneMatch(before::contains), "every member is new");
    }

    @Test
    void aJobSetOutOfRestartsIsLeftToAPerson() {
        var ctx = io.acceltriage.cluster.Owners.CUSTOM.get("JobSet");
        GenericKubernetesResource js = client.genericKubernetesResources(ctx).inNamespace("ml").withName("llm-pretrain").get();
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) js.getAdditionalProperties().get("status");
        status.put("restarts", 3);
        client.genericKubernetesResources(ctx).inNamespace("ml").resource(js).update();
        ActionRecord r = run(ActionKind.RESTART_GROUP, "ml/llm-pretrain");
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("jobset-restarts-left: JobSet ml/llm-pretrain has used 3 of its 3 restarts"), r.detail());
    }

    @Test
    void aNodeAgentRestartReplacesTheDevicePluginPod() {
        Pod plugin = podsOn("gpu-h100-03").stream().filter(p -> p.getMetadata().getName().contains("device-plugin")).findFirst().orElseThrow();
        ActionRecord r = run(ActionKind.RESTART_NODE_AGENT, "gpu-h100-03");
        assertTrue(r.status() == ActionStatus.SUCCEEDED || r.status() == ActionStatus.UNVERIFIED, r.detail());
        assertTrue(client.pods().inNamespace(plugin.getMetadata().getNamespace()).withName(plugin.getMetadata().getName()).get() == null,
                "the old device-plugin pod is gone");
    }

    @Test
    void aNodeAgentRestartReplacesTheFeatureDiscoveryPodOfANodeCarryingNoneOfItsLabels() {
        String node = "gpu-h100-03";
        client.nodes().withName(node).edit(n -> {
            n.getMetadata().getLabels().keySet().removeIf(k -> k.startsWith("nvidia.com/gpu.") || k.startsWith("nvidia.com/cuda."));
            return n;
        });
        client.pods().inNamespace("gpu-operator").resource(new PodBuilder().withNewMetadata().withName("gpu-feature-discovery-3a937")
                .withNamespace("gpu-operator").addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet")
                .withName("gpu-feature-discovery").withUid("gfd-uid").withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("gpu-feature-discovery").withImage("gfd").endContainer().endSpec()
                .build()).create();
        Pod plugin = podsOn(node).stream().filter(p -> p.getMetadata().getName().contains("device-plugin")).findFirst().orElseThrow();

        ActionRecord r = run(ActionKind.RESTART_NODE_AGENT, node);

        assertTrue(r.status() == ActionStatus.SUCCEEDED || r.status() == ActionStatus.UNVERIFIED, r.detail());
        assertTrue(client.pods().inNamespace("gpu-operator").withName("gpu-feature-discovery-3a937").get() == null,
                "the feature discovery pod that labelled nothing is gone");
        assertTrue(client.pods().inNamespace(plugin.getMetadata().getNamespace()).withName(plugin.getMetadata().getName()).get() != null,
                "the device plugin, which serves, is left alone");
    }

    @Test
    void aNodeAgentRestartNeverDeletesATenantsDaemonSetPodNamedLikeTheDevicePlugin() {
        String node = "gpu-h100-03";
        // namespace ml runs the training gang's GPU pods: a DaemonSet there is the tenant's, whatever its name
        Pod tenants = client.pods().inNamespace("ml").resource(new PodBuilder().withNewMetadata().withName("ml-device-plugin-shim-7xq2k")
                .withNamespace("ml").addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("ml-device-plugin-shim")
                .withUid("shim-uid").withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("shim").withImage("ghcr.io/ml/shim:1").endContainer().endSpec()
                .build()).create();
        podsOn(node).stream().filter(p -> p.getMetadata().getName().startsWith("nvidia-device-plugin"))
                .forEach(p -> client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).withGracePeriod(0).delete());

        run(ActionKind.RESTART_NODE_AGENT, node);

        assertTrue(client.pods().inNamespace("ml").withName(tenants.getMetadata().getName()).get() != null,
                "the tenant's pod is not a node agent and is left alone");
    }
}
