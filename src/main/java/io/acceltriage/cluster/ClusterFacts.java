package io.acceltriage.cluster;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the engine must know about the live cluster to apply scopes, blast-radius caps and opt-outs. */
public interface ClusterFacts {

    /** The node label validate-node writes ({@code passed} or {@code failed}), and the annotation holding DCGM's words. */
    String VALIDATION_LABEL = "acceltriage.io/validation";
    String VALIDATION_MESSAGE = "acceltriage.io/validation-message";

    /**
     * The facts to judge one assessment's proposals with: may remember what it read until then, so
     * must not be kept longer. Plain facts are their own.
     */
    default ClusterFacts forOneDecision() {
        return this;
    }

    /** The pool of the node, as the API server sees it now. */
    PoolState poolOf(String node);

    /** True when the target (a node, a pod or a workload) carries the policy's opt-out label. */
    boolean optedOut(TargetKind kind, String target, String label);

    /** The workload a pod belongs to, or the workload a workload-level action names. */
    default Optional<WorkloadFacts> workloadOf(TargetKind kind, String target) {
        return Optional.empty();
    }

    /** The workloads with pods on a node (DaemonSets left out: a drain does not evict them). */
    default List<WorkloadFacts> workloadsOnNode(String node) {
        return List.of();
    }

    /** Labels of the target itself (node or pod), merged under its workload's. */
    default Map<String, String> labelsOf(TargetKind kind, String target) {
        return Map.of();
    }

    /**
     * Why the Cluster API repairer of the node replaces it rather than rebooting it, as the cluster says: the
     * MachineHealthCheck selecting its Machine names no {@code remediationTemplate}, so Cluster API deletes the
     * Machine and its MachineSet makes a new one. Empty when a template is named (an external remediation, which
     * may reboot), or nothing tells (no Machine, no health check, not readable).
     */
    default Optional<String> machineReplacedOnRepair(String node) {
        return Optional.empty();
    }

    /**
     * DCGM's words when the node's last validation failed (its {@link #VALIDATION_LABEL} says {@code failed}); empty when it
     * passed, none ran, or nothing tells.
     */
    default Optional<String> failedValidation(String node) {
        return Optional.empty();
    }
}
