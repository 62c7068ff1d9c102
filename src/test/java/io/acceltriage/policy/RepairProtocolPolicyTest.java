package io.acceltriage.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.config.DataFiles;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each pool's repair protocol, and reboot-node's former name repair-node, as a policy file says them. */
class RepairProtocolPolicyTest {

    static final String HEAD = "apiVersion: acceltriage.io/v1\nkind: Policy\n";

    static Policy parse(String yaml) {
        return Policy.parse("p.yaml", (HEAD + yaml).getBytes(StandardCharsets.UTF_8));
    }

    static String refusal(String yaml) {
        return assertThrows(DataFiles.InvalidDataFile.class, () -> parse(yaml)).getMessage();
    }

    @Test
    void eachPoolHasItsOwnProtocolAndTheRestTheDefault() {
        Policy p = parse("repair:\n  protocol: handshake\n  pools: {a100-serve: clusterapi, h100-train: karpenter}\n  replaceTimeout: 10m\n");
        assertEquals("clusterapi", p.repairProtocol("a100-serve"));
        assertEquals("karpenter", p.repairProtocol("h100-train"));
        assertEquals("handshake", p.repairProtocol("tpu-v5e"));
        assertEquals("handshake", p.repairProtocol(null), "a node of no known pool gets the default");
        assertEquals(Duration.ofMinutes(10), p.replaceTimeout());
        assertEquals(Duration.ofMinutes(30), parse("").replaceTimeout());
    }

    @Test
    void aPoolsUnknownProtocolOrAMedik8sPoolWithoutItsRemediationIsRefusedWithItsLine() {
        assertTrue(refusal("repair:\n  pools: {a100-serve: ironic}\n")
                .startsWith("p.yaml:4: repair.pools.a100-serve must be one of [handshake, medik8s, clusterapi, karpenter], got 'ironic'"));
        assertTrue(refusal("repair:\n  pools: {a100-serve: medik8s}\n").contains("repair.remediation needs apiVersion, kind and namespace"));
        assertTrue(refusal("repair:\n  replaceTimeout: later\n").contains("repair.replaceTimeout: 'later' is not a duration"));
    }

    @Test
    void theResetMethodAndItsJobAreCheckedWithTheirLines() {
        Policy bare = parse("");
        assertEquals("node-agent", bare.resetMethod());
        assertEquals("policies/reset-gpu-job.yaml", bare.resetTemplate());
        assertEquals(new Policy.Dra("gpu.nvidia.com", "resource.k8s.io/v1alpha3"), bare.dra());
        Policy job = parse("repair:\n  resetMethod: job\n  resetJob: {namespace: gpu-ops}\n  dra: {apiVersion: resource.k8s.io/v1}\n");
        assertEquals("job", job.resetMethod());
        assertEquals("gpu-ops", job.resetNamespace());
        assertEquals(new Policy.Dra("gpu.nvidia.com", "resource.k8s.io/v1"), job.dra());
        assertTrue(refusal("repair:\n  resetMethod: ssh\n").startsWith("p.yaml:4: repair.resetMethod must be node-agent or job, got 'ssh'"));
        assertTrue(refusal("repair:\n  resetJob: {namespace: Bad_NS}\n").contains("repair.resetJob.namespace: 'Bad_NS' is not a namespace name"));
        assertTrue(refusal("repair:\n  dra: {apiVersion: v1}\n").contains("repair.dra.apiVersion: 'v1' is not a resource.k8s.io version"));
    }

    @Test
    void repairNodeIsTheFormerNameOfRebootNodeAndStillMeansIt() {
        assertEquals(ActionKind.REPAIR_NODE, ActionKind.parse("repair-node"));
        assertEquals(ActionKind.REPAIR_NODE, ActionKind.parse("reboot-node"));
        assertEquals("reboot-node", ActionKind.parse("repair-node").wireName(), "written out under its current name");
        Policy old = parse("actions:\n  repair-node: {decision: allow}\n");
        assertEquals(Decision.ALLOW, old.rule(ActionKind.REPAIR_NODE).decision(), "an older policy's rule still applies");
        assertEquals(Decision.APPROVE, parse("actions:\n  reboot-node: {decision: approve}\n").rule(ActionKind.REPAIR_NODE).decision());
        assertTrue(refusal("actions:\n  repair-node: {decision: allow}\n  reboot-node: {decision: deny}\n")
                .contains("repair-node is the former name of reboot-node; keep one of the two"));
    }
}
