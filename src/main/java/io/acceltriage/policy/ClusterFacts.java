package io.acceltriage.policy;

/** What the engine must know about the live cluster to apply blast-radius caps and opt-outs. */
public interface ClusterFacts {

    /** The pool of the node, as the API server sees it now. */
    PoolState poolOf(String node);

    /** True when the target (a node, a pod or a workload) carries the policy's opt-out label. */
    boolean optedOut(ActionKind kind, String target, String label);
}
