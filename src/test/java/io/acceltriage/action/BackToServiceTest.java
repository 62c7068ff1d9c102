package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.TestAudit;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.Database;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The way back to service against the simulated cluster, whose node agents answer the reset and
 * repair handshakes: reset-gpu moves only the GPU's own pods and returns the node with the GPU healthy;
 * a fault a reset cannot clear keeps the node fenced; reboot-node (formerly repair-node) hands a node over and return-node
 * takes it back only once the repair answered and the health check passed.
 */
class BackToServiceTest {

    static final String NODE = "gpu-a100-06";

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
        executor = executor(null);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    Executor executor(Policy policy) {
        return new Executor(client, database, audit, Leadership.ALWAYS, MitigationsTest.FAST, () -> policy, new TelemetryGpus(exporter()));
    }

    /** The simulated dcgm-exporter, read as the service reads it. */
    MetricsSource exporter() {
        return node -> {
            try {
                return new NodeSamples(ExpositionParser.parse(cluster.exporterText(node)), List.of());
            } catch (RuntimeException e) {
                throw new MetricsSource.EvidenceUnavailable(e.getMessage());
            }
        };
    }

    ActionRecord run(ActionKind kind, String target) {
        return executor.carryOut("inc-" + UUID.randomUUID().toString().substring(0, 8), MitigationsTest.proposal(kind, target),
                MitigationsTest.allow());
    }

    Node node(String name) {
        return client.nodes().withName(name).get();
    }

    static String gpuUuid(String node, int index) {
        return "GPU-" + UUID.nameUUIDFromBytes((node + "/gpu/" + index).getBytes(StandardCharsets.UTF_8));
    }

    /** A second workload pod on the node, holding GPU 3: the reset of GPU 0 must leave it running. */
    Pod neighbourOnGpu3() {
        Pod p = new PodBuilder().withNewMetadata().withName("eval-neighbour").withNamespace("research").endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("eval").withImage("ghcr.io/acme/eval:1").endContainer()
                .endSpec()
                .withNewStatus().withPhase("Running").addNewContainerStatus().withName("eval").withReady(true)
                .addNewAllocatedResourcesStatus().withName("nvidia.com/gpu").addNewResource().withResourceID(gpuUuid(NODE, 3))
                .withHealth("Healthy").endResource().endAllocatedResourcesStatus().endContainerStatus().endStatus().build();
        return client.pods().inNamespace("research").resource(p).create();
    }

    double xid(String node, int gpu) {
        return ExpositionParser.parse(cluster.exporterText(node)).stream()
                .filter(s -> s.name().equals("DCGM_FI_DEV_XID_ERRORS") && String.valueOf(gpu).equals(s.label("gpu")))
                .findFirst().orElseThrow().value();
    }

    int allocatableGpus(String node) {
        return node(node).getStatus().getAllocatable().get("nvidia.com/gpu").getNumericalAmount().intValue();
    }

    @Test
    void aGpuResetMovesOnlyThatGpusPodsAndReturnsTheNodeWithTheGpuHealthy() {
        Pod neighbour = neighbourOnGpu3();
        String jupyterUid = client.pods().inNamespace("research").withName("jupyter-alice-0").get().getMetadata().getUid();
        cluster.inject(Fault.xid(NODE, 0, 48));
        assertEquals(48.0, xid(NODE, 0));
        assertEquals(7, allocatableGpus(NODE), "the device plugin took the faulty GPU away");

        ActionRecord r = run(ActionKind.RESET_GPU, NODE + "/0");

        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains("evicted research/jupyter-alice-0"), r.detail());
        assertTrue(r.detail().contains("paused and restored [device-plugin, dcgm-exporter]"), r.detail());
        assertTrue(r.detail().contains("GPU 00000000:"), "the node agent's own words: " + r.detail());
        assertTrue(r.detail().contains("verified: GPU 0 of " + NODE + " is healthy"), r.detail());
        Pod jupyter = client.pods().inNamespace("research").withName("jupyter-alice-0").get();
        assertNotEquals(jupyterUid, jupyter.getMetadata().getUid(), "the pod on GPU 0 was moved");
        assertNotEquals(NODE, jupyter.getSpec().getNodeName(), "while the node was cordoned its replacement landed elsewhere");
        Pod still = client.pods().inNamespace("research").withName("eval-neighbour").get();
        assertEquals(neighbour.getMetadata().getUid(), still.getMetadata().getUid(), "the pod on GPU 3 kept running");
        assertEquals(NODE, still.getSpec().getNodeName());
        Node n = node(NODE);
        assertFalse(Boolean.TRUE.equals(n.getSpec().getUnschedulable()), "the node is back in service");
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.device-plugin"));
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.dcgm-exporter"));
        assertNull(n.getMetadata().getLabels().get(ResetGpu.REQUEST));
        assertNull(n.getMetadata().getLabels().get(ResetGpu.STATE));
        assertNull(n.getMetadata().getAnnotations().get(ResetGpu.PAUSED));
        assertEquals(8, allocatableGpus(NODE));
        assertEquals(0.0, xid(NODE, 0), "the XID is cleared");
    }

    @Test
    void aResetOfAGpuOnlyARebootClearsFailsAndTheNodeStaysFencedWithItsOperandsBack() {
        cluster.inject(Fault.xid(NODE, 0, 79));

        ActionRecord r = run(ActionKind.RESET_GPU, NODE + "/0");

        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("needs a node reboot"), "the node agent's refusal is passed on: " + r.detail());
        Node n = node(NODE);
        assertTrue(Boolean.TRUE.equals(n.getSpec().getUnschedulable()), "a GPU still broken keeps its node fenced");
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.device-plugin"), "operands restored either way");
        assertNull(n.getMetadata().getLabels().get(ResetGpu.REQUEST));
    }

    @Test
    void aResetTargetThatNamesNoGpuIsRefusedBeforeAnythingChanges() {
        ActionRecord r = run(ActionKind.RESET_GPU, NODE + "/8");
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().startsWith("precondition gpu-of-node: node " + NODE + " has 8 GPUs; there is no GPU 8"), r.detail());
        assertFalse(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()));
        assertTrue(run(ActionKind.RESET_GPU, NODE).detail().contains("the target must be NODE/GPU"));
    }

    @Test
    void aNodeHandedToRepairComesBackOnlyAfterTheRepairerAnsweredAndTheHealthCheckPassed() {
        cluster.inject(Fault.xid(NODE, 0, 79));
        run(ActionKind.CORDON_NODE, NODE);
        // Fenced, but not repaired: no health check has run, so it may not come back.
        ActionRecord early = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.FAILED, early.status(), early.detail());
        assertTrue(early.detail().contains("stays fenced"), early.detail());

        ActionRecord repair = run(ActionKind.REPAIR_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, repair.status(), repair.detail());
        assertTrue(repair.detail().contains("evicted research/jupyter-alice-0"), "drained before the hand-over: " + repair.detail());
        assertTrue(repair.detail().contains("handed " + NODE + " to repair"), repair.detail());
        assertTrue(MitigationsTest.FAST.until(java.time.Duration.ofSeconds(5),
                () -> "complete".equals(node(NODE).getMetadata().getLabels().get(RepairNode.LABEL))), "the simulated repairer answers");
        assertEquals(0.0, xid(NODE, 0), "the simulated repairer rebooted the node");

        ActionRecord back = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, back.status(), back.detail());
        assertTrue(back.detail().contains("acceltriage.io/gpu-health=passed"), back.detail());
        Node n = node(NODE);
        assertFalse(Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
        assertNull(n.getMetadata().getLabels().get(RepairNode.LABEL));
        assertTrue(n.getSpec().getTaints().stream().noneMatch(t -> t.getKey().equals(RepairNode.TAINT)));

        executor.undo(back.id(), "alice");
        assertTrue(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()), "undoing a return fences the node again");
    }

    @Test
    void aFailedHealthCheckKeepsTheNodeFencedAndSaysWhatTheCheckSaid() {
        run(ActionKind.CORDON_NODE, NODE);
        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().addToLabels("acceltriage.io/gpu-health", "failed")
                .addToAnnotations("acceltriage.io/gpu-health", "dcgmi diag -r 2: Fail: GPU 3 memory test: 12 errors").endMetadata().build());
        ActionRecord r = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.FAILED, r.status());
        assertTrue(r.detail().contains("GPU 3 memory test: 12 errors"), r.detail());
        assertTrue(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()));
    }

    /** The shipped default policy: no health label, so only a validate-node passed after the repair returns a node. */
    static Policy validating(String extra) {
        return Policy.parse("v.yaml", ("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                repair:
                  validation: {level: 2, namespace: acceltriage, timeout: 1m%s}
                """.formatted(extra)).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRepairedNodeComesBackOnlyAfterItsDcgmDiagnosticPassedNotOnTheRepairersHealthLabel() {
        executor = executor(validating(""));
        cluster.inject(Fault.xid(NODE, 0, 79));
        run(ActionKind.CORDON_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, run(ActionKind.REPAIR_NODE, NODE).status());
        assertTrue(MitigationsTest.FAST.until(java.time.Duration.ofSeconds(5),
                () -> "complete".equals(node(NODE).getMetadata().getLabels().get(RepairNode.LABEL))), "the simulated repairer answers");

        ActionRecord early = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.FAILED, early.status(), "the repairer's own health label is not enough here: " + early.detail());
        assertTrue(early.detail().contains("no validate-node has passed since the repair"), early.detail());

        ActionRecord validated = run(ActionKind.VALIDATE_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, validated.status(), validated.detail());
        assertTrue(validated.detail().contains("dcgmi diag -r 2: Pass (3 tests)"), validated.detail());
        assertTrue(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()), "validation alone never uncordons");
        assertTrue(client.batch().v1().jobs().inNamespace("acceltriage").list().getItems().stream()
                .noneMatch(j -> NODE.equals(j.getMetadata().getLabels().get(ValidateNode.JOB_LABEL))), "a passed Job is cleaned up");

        ActionRecord back = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, back.status(), back.detail());
        assertTrue(back.detail().contains("dcgmi diag -r 2: Pass"), back.detail());
        assertFalse(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()));
    }

    @Test
    void aFailedDiagnosticKeepsTheNodeFencedInDcgmsOwnWordsAndLeavesTheJobForAPerson() {
        executor = executor(validating(""));
        cluster.inject(Fault.xid(NODE, 1, 79));
        run(ActionKind.CORDON_NODE, NODE);

        ActionRecord r = run(ActionKind.VALIDATE_NODE, NODE);
        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("stays fenced: dcgmi diag -r 2: memory (Hardware) failed on GPU 1: Detected XID 79 for GPU 1"),
                r.detail());
        Node n = node(NODE);
        assertTrue(Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
        assertEquals("failed", n.getMetadata().getLabels().get(ValidateNode.LABEL));
        assertEquals(1, client.batch().v1().jobs().inNamespace("acceltriage").withLabel(ValidateNode.JOB_LABEL, NODE).list().getItems().size(),
                "the failed Job stays for a person to read");

        // Even with every GPU advertised again (the device plugin's view), the failed diagnostic keeps it out.
        client.nodes().withName(NODE).editStatus(x -> new NodeBuilder(x).editStatus()
                .addToAllocatable("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8")).endStatus().build());
        ActionRecord back = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.FAILED, back.status());
        assertTrue(back.detail().contains("validate-node failed: dcgmi diag -r 2: memory (Hardware) failed on GPU 1: Detected XID 79"),
                back.detail());
        assertTrue(Boolean.TRUE.equals(node(NODE).getSpec().getUnschedulable()));
    }

    @Test
    void theDiagnosticLevelIsThePoolsWhenThePolicyNamesItAndANodeWhoseRepairFailedIsNotValidated() {
        executor = executor(validating(", pools: {a100-serve: 3}"));
        run(ActionKind.CORDON_NODE, NODE);
        ActionRecord dry = executor.carryOut("inc-dry-" + UUID.randomUUID().toString().substring(0, 8), MitigationsTest.proposal(ActionKind.VALIDATE_NODE, NODE),
                new io.acceltriage.policy.Verdict(io.acceltriage.policy.Decision.ALLOW, "test", List.of("test"), true));
        assertEquals(ActionStatus.DRY_RUN, dry.status(), dry.detail());
        assertTrue(dry.detail().contains("would run dcgmi diag -r 3 on " + NODE), dry.detail());
        assertTrue(client.batch().v1().jobs().inNamespace("acceltriage").list().getItems().isEmpty(), "a dry run creates no Job");

        ActionRecord r = run(ActionKind.VALIDATE_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains("dcgmi diag -r 3: Pass (6 tests)"), "level 3 adds the stress tests: " + r.detail());

        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().addToLabels(RepairNode.LABEL, "failed").endMetadata().build());
        ActionRecord held = run(ActionKind.VALIDATE_NODE, NODE);
        assertEquals(ActionStatus.FAILED, held.status());
        assertTrue(held.detail().startsWith("precondition back-from-repair: the repairer reports failure on " + NODE), held.detail());
    }

    @Test
    void theStepsOfOneRepairRunInOrderAndReturnIsProposedOnlyOnceTheValidationPassed() {
        executor = executor(validating(""));
        String incident = "inc-" + UUID.randomUUID().toString().substring(0, 8);
        cluster.inject(Fault.xid(NODE, 0, 79));
        io.acceltriage.policy.Verdict approve = new io.acceltriage.policy.Verdict(io.acceltriage.policy.Decision.APPROVE, "test",
                List.of("test"), false);
        // As triage records them: all three at once, the return for a person.
        assertEquals(ActionStatus.SUCCEEDED, executor.carryOut(incident, MitigationsTest.proposal(ActionKind.CORDON_NODE, NODE),
                MitigationsTest.allow()).status());
        ActionRecord repair = executor.carryOut(incident, MitigationsTest.proposal(ActionKind.REPAIR_NODE, NODE), approve);
        ActionRecord validate = executor.carryOut(incident, MitigationsTest.proposal(ActionKind.VALIDATE_NODE, NODE), MitigationsTest.allow());
        ActionRecord back = executor.carryOut(incident, MitigationsTest.proposal(ActionKind.RETURN_NODE, NODE), approve);
        assertEquals(ActionStatus.AWAITING_APPROVAL, repair.status());
        assertEquals(ActionStatus.PLANNED, validate.status(), "an allowed validation waits for the repair: " + validate.detail());
        assertEquals(0, executor.followUps(), "nothing is ready while the repair waits");
        assertEquals(0, executor.resumePlanned());
        assertTrue(executor.awaitingSince(executor.find(back.id()).orElseThrow()).isEmpty(), "no approval window runs yet");

        // The repair runs (as an approval would make it) and the simulated repairer answers.
        ActionRecord planned = executor.database().transaction(tx -> executor.store().transition(tx, repair, ActionStatus.AWAITING_APPROVAL,
                ActionStatus.PLANNED, repair.detail(), null)).orElseThrow();
        assertEquals(ActionStatus.SUCCEEDED, executor.run(planned).status());
        assertTrue(MitigationsTest.FAST.until(java.time.Duration.ofSeconds(30), () -> {
            executor.resumePlanned();
            return executor.find(validate.id()).orElseThrow().status() != ActionStatus.PLANNED;
        }), "the leader's loop runs the validation once the repairer answered");
        ActionRecord ran = executor.find(validate.id()).orElseThrow();
        assertEquals(ActionStatus.SUCCEEDED, ran.status(), ran.detail());

        assertEquals(1, executor.followUps(), "return-node is proposed now, as its own step");
        ActionRecord ready = executor.find(back.id()).orElseThrow();
        assertEquals(ActionStatus.AWAITING_APPROVAL, ready.status());
        assertTrue(ready.detail().contains("ready for approval: validate-node " + NODE + " passed"), ready.detail());
        assertEquals(ready.updatedAt(), executor.awaitingSince(ready).orElseThrow(), "its approval window starts now");
        assertEquals(0, executor.followUps(), "proposed once");
        assertTrue(io.acceltriage.audit.TestAudit.reader(database).find(io.acceltriage.audit.AuditQuery.forIncident(incident)).stream().anyMatch(r -> r.kind() == io.acceltriage.audit.AuditKind.PROPOSAL
                && String.valueOf(r.payload()).contains("validate-node " + NODE + " passed")), "the proposal is audited");
    }

    @Test
    void aLaterStepWhoseRepairWasRefusedIsSkippedWithTheReason() {
        String incident = "inc-" + UUID.randomUUID().toString().substring(0, 8);
        run(ActionKind.CORDON_NODE, NODE);
        ActionRecord repair = executor.carryOut(incident, MitigationsTest.proposal(ActionKind.REPAIR_NODE, NODE),
                new io.acceltriage.policy.Verdict(io.acceltriage.policy.Decision.DENY, "test", List.of("denied"), false));
        assertEquals(ActionStatus.SKIPPED, repair.status());
        ActionRecord validate = executor.carryOut(incident, MitigationsTest.proposal(ActionKind.VALIDATE_NODE, NODE), MitigationsTest.allow());
        assertEquals(ActionStatus.SKIPPED, validate.status());
        assertTrue(validate.detail().contains("not run: reboot-node " + NODE + " is skipped"), validate.detail());
        assertTrue(client.batch().v1().jobs().inAnyNamespace().withLabel(ValidateNode.JOB_LABEL, NODE).list().getItems().isEmpty(),
                "no diagnostic Job was started");
    }

    @Test
    void theMedik8sProtocolCreatesARemediationNamedAfterTheNodeAndWaitsForItToSucceed() {
        Policy medik8s = Policy.parse("m.yaml", """
                apiVersion: acceltriage.io/v1
                kind: Policy
                repair:
                  protocol: medik8s
                  remediation: {apiVersion: remediation.medik8s.io/v1alpha1, kind: SelfNodeRemediation, namespace: medik8s}
                  healthLabel: {key: example.com/diag, pass: ok}
                """.getBytes(StandardCharsets.UTF_8));
        executor = executor(medik8s);
        run(ActionKind.CORDON_NODE, NODE);
        ActionRecord repair = run(ActionKind.REPAIR_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, repair.status(), repair.detail());
        var crs = RepairNode.remediations(client, medik8s.remediation());
        assertNotNull(crs.withName(NODE).get(), "a remediation CR named after the node");

        ActionRecord early = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.FAILED, early.status());
        assertTrue(early.detail().contains("SelfNodeRemediation medik8s/" + NODE + " has not succeeded yet"), early.detail());

        crs.withName(NODE).edit(cr -> {
            cr.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Succeeded", "status", "True"))));
            return cr;
        });
        // A merge patch, as a diagnostics agent writes its label: the simulated repair agent updates the node meanwhile,
        // and an edit (read, then patch at that version) met its change with a 409 (CI, 2026-12-03).
        client.nodes().withName(NODE).patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"example.com/diag\":\"ok\"}}}");
        ActionRecord back = run(ActionKind.RETURN_NODE, NODE);
        assertEquals(ActionStatus.SUCCEEDED, back.status(), back.detail());
        GenericKubernetesResource gone = crs.withName(NODE).get();
        assertNull(gone, "the remediation is deleted once the node is back");
    }

    @Test
    void aDryRunResetSaysWhatItWouldDoAndChangesNothing() {
        cluster.inject(Fault.xid(NODE, 0, 48));
        ActionRecord r = executor.carryOut("inc-dry", MitigationsTest.proposal(ActionKind.RESET_GPU, NODE + "/0"),
                new io.acceltriage.policy.Verdict(io.acceltriage.policy.Decision.ALLOW, "test", List.of("test"), true));
        assertEquals(ActionStatus.DRY_RUN, r.status(), r.detail());
        assertTrue(r.detail().contains("would evict research/jupyter-alice-0, pause [device-plugin, dcgm-exporter]"), r.detail());
        Node n = node(NODE);
        assertFalse(Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
        assertEquals("true", n.getMetadata().getLabels().get("nvidia.com/gpu.deploy.device-plugin"));
        assertNull(n.getMetadata().getLabels().get(ResetGpu.REQUEST));
        assertEquals(48.0, xid(NODE, 0), "nothing was reset");
    }

    @Test
    void aGpuHeldByAGangMemberIsNotResetUnderThePodsOfTheRestOfTheGang() {
        // gpu-h100-04 runs one member of the pretraining JobSet on all eight GPUs.
        cluster.inject(Fault.xid("gpu-h100-04", 1, 48));
        ActionRecord r = run(ActionKind.RESET_GPU, "gpu-h100-04/1");
        assertEquals(ActionStatus.FAILED, r.status(), r.detail());
        assertTrue(r.detail().contains("of JobSet ml/llm-pretrain") && r.detail().contains("restart the group first"), r.detail());
        assertEquals(4, client.pods().inNamespace("ml").list().getItems().stream()
                .filter(p -> p.getMetadata().getName().startsWith("llm-pretrain-workers-0-") && p.getMetadata().getDeletionTimestamp() == null)
                .count(), "no member was evicted");
        assertNull(node("gpu-h100-04").getMetadata().getLabels().get(ResetGpu.REQUEST), "no reset was asked for");

        // Once the group has restarted elsewhere, the same reset goes through.
        assertEquals(ActionStatus.SUCCEEDED, run(ActionKind.RESTART_GROUP, "ml/llm-pretrain").status());
        ActionRecord after = run(ActionKind.RESET_GPU, "gpu-h100-04/1");
        assertEquals(ActionStatus.SUCCEEDED, after.status(), after.detail());
    }

    @Test
    void theFifthFatalXidOnAGpuIsCountedFromTheFaultHistoryAndStopsTheReset() {
        // A GPU of its own, so other tests' rows in the shared database do not count.
        String gpu = "gpu-x-" + UUID.randomUUID().toString().substring(0, 6) + "/1";
        String node = gpu.substring(0, gpu.indexOf('/'));
        io.acceltriage.history.FaultHistory faults = new io.acceltriage.history.FaultHistory(database);
        io.acceltriage.cluster.ClusterFacts facts = new io.acceltriage.cluster.ClusterFacts() {
            public io.acceltriage.cluster.PoolState poolOf(String node) {
                return new io.acceltriage.cluster.PoolState("h100-train", 12, 0, 11, false);
            }

            public boolean optedOut(io.acceltriage.cluster.TargetKind kind, String target, String label) {
                return false;
            }
        };
        Policy policy = Policy.load("policies/default.yaml");
        io.acceltriage.policy.PolicyEngine engine = new io.acceltriage.policy.PolicyEngine(() -> policy, facts, new StoredHistory(database),
                io.acceltriage.policy.Breaker.inMemory(), java.time.Clock.systemUTC(), (n, g, since) -> faults.fatalOnGpu(n, g, since)
                        .stream().map(io.acceltriage.history.GpuFault::at).toList());
        io.acceltriage.policy.PolicyContext device = new io.acceltriage.policy.PolicyContext(io.acceltriage.diagnosis.Family.DEVICE, 0.95, false);
        for (int i = 1; i <= 5; i++) {
            var proposal = MitigationsTest.proposal(ActionKind.RESET_GPU, gpu);
            io.acceltriage.policy.Verdict v = engine.decide(proposal, device);
            if (i < 5) {
                assertEquals(io.acceltriage.policy.Decision.APPROVE, v.decision(), "XID " + i + ": " + v);
                // Nobody approves: the reset is rejected or expires, yet the XID it answered still counts, as its
                // incident recorded it in the fault history (twice: a re-triage of an incident counts once).
                String incident = "inc-xid-" + i + "-" + gpu;
                ActionRecord waiting = executor.carryOut(incident, proposal, v);
                assertEquals(ActionStatus.AWAITING_APPROVAL, waiting.status());
                for (int seen = 0; seen < 2; seen++) {
                    java.time.Instant at = java.time.Instant.now().minusSeconds(seen);
                    database.transaction(tx -> {
                        faults.record(tx, List.of(new io.acceltriage.history.GpuFault(node, "1", null, 48, true, "pid-" + at.getNano(),
                                "exporter", incident, at)));
                        return null;
                    });
                }
            } else {
                assertEquals("repeatOffenders.fatalXidsPerGpu", v.rule(), v.toString());
                assertTrue(v.reasons().get(0).contains("5 fatal XIDs") && v.reasons().get(0).contains("contact support"), v.toString());
            }
        }
    }

    @Test
    void aNodeSomeoneElseCordonedStaysCordonedAfterTheReset() {
        String node = "gpu-a100-07";
        client.nodes().withName(node).edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build());
        cluster.inject(Fault.xid(node, 2, 62));
        ActionRecord r = run(ActionKind.RESET_GPU, node + "/2");
        assertEquals(ActionStatus.SUCCEEDED, r.status(), r.detail());
        assertTrue(r.detail().contains(node + " stays cordoned: it was cordoned before the reset, not by acceltriage"), r.detail());
        assertTrue(Boolean.TRUE.equals(node(node).getSpec().getUnschedulable()));
        assertEquals(0.0, xid(node, 2));
    }
}
