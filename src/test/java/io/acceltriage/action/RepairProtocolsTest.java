package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.audit.TestAudit;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.store.TestDatabases;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each repair protocol against the simulated cluster, whose Cluster API pool (a100-serve) and Karpenter
 * pool (h100-train) are made by simulated controllers: a node goes to its pool's repairer, comes back
 * (rebooted, with a new boot id, or replaced, as a new node in the pool), is validated and returned, as
 * one incident's steps in order.
 */
class RepairProtocolsTest {

    SimulatedCluster cluster;
    KubernetesClient client;
    Executor executor;
    String incident;

    @BeforeEach
    void start() {
        cluster = SimulatedCluster.start();
        client = cluster.client();
        incident = "inc-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    void policy(String pools) {
        Policy p = Policy.parse("p.yaml", ("""
                apiVersion: acceltriage.io/v1
                kind: Policy
                repair:
                  pools: {%s}
                  replaceTimeout: 20s
                  validation: {level: 2, namespace: acceltriage, timeout: 1m}
                """.formatted(pools)).getBytes(StandardCharsets.UTF_8));
        var database = TestDatabases.h2();
        executor = new Executor(client, database, TestAudit.on(database), Leadership.ALWAYS, MitigationsTest.FAST, () -> p);
    }

    ActionRecord step(ActionKind kind, String node) {
        return executor.carryOut(incident, MitigationsTest.proposal(kind, node), MitigationsTest.allow());
    }

    Node node(String name) {
        return client.nodes().withName(name).get();
    }

    List<Node> pool(String pool) {
        return client.nodes().withLabel("acceltriage.io/pool", pool).list().getItems();
    }

    GenericKubernetesResource machineOf(Node n) {
        return client.genericKubernetesResources(Repairers.MACHINES).inNamespace(n.getMetadata().getAnnotations().get(Repairers.CAPI_NAMESPACE))
                .withName(n.getMetadata().getAnnotations().get(Repairers.CAPI_MACHINE)).get();
    }

    /** The validation and the return of the node that stands for {@code node}, as the incident's later steps. */
    Node validatedAndReturned(String node) {
        ActionRecord validated = step(ActionKind.VALIDATE_NODE, node);
        assertEquals(ActionStatus.SUCCEEDED, validated.status(), validated.detail());
        assertTrue(validated.detail().contains("dcgmi diag -r 2: Pass"), validated.detail());
        ActionRecord back = step(ActionKind.RETURN_NODE, node);
        assertEquals(ActionStatus.SUCCEEDED, back.status(), back.detail());
        Node standing = Repairers.standingFor(client, node).orElseThrow();
        assertFalse(Pods.fenced(standing), "returned to service: " + back.detail());
        assertNull(standing.getMetadata().getLabels().get(RepairNode.LABEL));
        return standing;
    }

    @Test
    void clusterApiReplacesTheMachineAndTheNewNodeIsValidatedAndReturnedInItsPlace() {
        policy("a100-serve: clusterapi");
        String old = "gpu-a100-07";
        String oldMachine = node(old).getMetadata().getAnnotations().get(Repairers.CAPI_MACHINE);
        cluster.inject(Fault.xid(old, 2, 79));
        int size = pool("a100-serve").size();

        ActionRecord replaced = step(ActionKind.REPLACE_NODE, old);
        assertEquals(ActionStatus.SUCCEEDED, replaced.status(), replaced.detail());
        assertTrue(replaced.detail().contains("annotated Machine capi-fleet/" + oldMachine + " cluster.x-k8s.io/remediate-machine"),
                replaced.detail());
        assertNull(node(old), "the MachineSet deleted the old Machine and its node");
        Node fresh = Repairers.standingFor(client, old).orElseThrow();
        assertNotEquals(old, fresh.getMetadata().getName());
        assertEquals(old, fresh.getMetadata().getAnnotations().get(Repairers.REPLACES));
        assertTrue(Pods.fenced(fresh), "the replacement is fenced until validated");
        assertNotEquals(oldMachine, machineOf(fresh).getMetadata().getName(), "a new Machine owns it");
        assertEquals(size, pool("a100-serve").size());

        Node back = validatedAndReturned(old);
        assertEquals(fresh.getMetadata().getName(), back.getMetadata().getName(), "validate-node and return-node acted on the replacement");
    }

    @Test
    void clusterApiWithAnExternalRemediationRebootsTheSameNodeWhichReturnsOnceItsBootIdChanged() {
        policy("a100-serve: clusterapi");
        String node = "gpu-a100-08";
        // The MachineHealthCheck's external remediation (Metal3's, for one) reboots instead of replacing.
        client.genericKubernetesResources(Repairers.MACHINES.getGroup() + "/v1beta1", "MachineHealthCheck").inNamespace("capi-fleet")
                .withName("a100-serve-unhealthy").edit(m -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> spec = (Map<String, Object>) m.getAdditionalProperties().get("spec");
                    spec.put("remediationTemplate", Map.of("apiVersion", "infrastructure.cluster.x-k8s.io/v1beta1",
                            "kind", "Metal3RemediationTemplate", "name", "reboot", "namespace", "capi-fleet"));
                    return m;
                });
        String boot = Repairers.bootId(node(node));
        cluster.inject(Fault.xid(node, 1, 79));

        ActionRecord rebooted = step(ActionKind.REPAIR_NODE, node);
        assertEquals(ActionStatus.SUCCEEDED, rebooted.status(), rebooted.detail());
        assertTrue(rebooted.detail().contains("(clusterapi, reboot)"), rebooted.detail());
        assertTrue(MitigationsTest.FAST.until(Duration.ofSeconds(10), () -> !boot.equals(Repairers.bootId(node(node)))),
                "the external remediation rebooted the node");

        validatedAndReturned(node);
        Node n = node(node);
        assertFalse(machineOf(n).getMetadata().getAnnotations().containsKey(Repairers.CAPI_REMEDIATE),
                "the remediation request is gone, so the Machine is not remediated again");
    }

    @Test
    void karpenterReplacesTheNodeWhenItsNodeClaimIsDeleted() {
        policy("h100-train: karpenter");
        String old = "gpu-h100-09";
        String claim = new Repairers(client).nodeClaim(old).orElseThrow().getMetadata().getName();
        cluster.inject(Fault.xid(old, 0, 79));

        ActionRecord replaced = step(ActionKind.REPLACE_NODE, old);
        assertEquals(ActionStatus.SUCCEEDED, replaced.status(), replaced.detail());
        assertTrue(replaced.detail().contains("deleted NodeClaim " + claim), replaced.detail());
        assertNull(client.genericKubernetesResources(Repairers.NODECLAIMS).withName(claim).get());
        Node fresh = Repairers.standingFor(client, old).orElseThrow();
        assertNotEquals(old, fresh.getMetadata().getName());
        assertTrue(new Repairers(client).nodeClaim(fresh.getMetadata().getName()).isPresent(), "the NodePool provisioned a NodeClaim");

        validatedAndReturned(old);
    }

    @Test
    void aHandshakeRepairerAskedToReplaceAnswersWithANewNodeInThePool() {
        policy("");
        String old = "gpu-h100-05";
        ActionRecord replaced = step(ActionKind.REPLACE_NODE, old);
        assertEquals(ActionStatus.SUCCEEDED, replaced.status(), replaced.detail());
        assertTrue(replaced.detail().contains("(handshake, replace): label acceltriage.io/repair=requested, acceltriage.io/repair-action=replace"),
                replaced.detail());
        Node fresh = Repairers.standingFor(client, old).orElseThrow();
        assertNotEquals(old, fresh.getMetadata().getName());
        assertEquals("h100-train", fresh.getMetadata().getLabels().get("acceltriage.io/pool"));
        validatedAndReturned(old);
    }

    @Test
    void karpenterCannotRebootSoRebootNodeIsRefusedBeforeTheNodeIsDrained() {
        policy("h100-train: karpenter");
        String node = "gpu-h100-10";
        ActionRecord refused = step(ActionKind.REPAIR_NODE, node);
        assertEquals(ActionStatus.FAILED, refused.status());
        assertTrue(refused.detail().contains("precondition protocol-can-reboot: Karpenter replaces nodes, it never reboots one"),
                refused.detail());
        assertFalse(Pods.fenced(node(node)), "nothing was done to the node");
    }

    @Test
    void aPoolWithoutClusterApiMachinesIsNotHandedToClusterApi() {
        policy("h100-train: clusterapi");
        ActionRecord refused = step(ActionKind.REPAIR_NODE, "gpu-h100-11");
        assertEquals(ActionStatus.FAILED, refused.status());
        assertTrue(refused.detail().contains("names no Cluster API Machine"), refused.detail());
        assertTrue(Pods.fenced(node("gpu-h100-11")), "drained and cordoned, it stays so for a person");
    }
}
