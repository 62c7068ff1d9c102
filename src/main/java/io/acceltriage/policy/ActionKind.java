package io.acceltriage.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.acceltriage.cluster.TargetKind;

/** The mitigations of the design, by the names scenarios, policies and the API use. */
public enum ActionKind {
    RESTART_POD("restart-pod", TargetKind.POD),
    RESTART_GROUP("restart-group", TargetKind.WORKLOAD),
    CORDON_NODE("cordon-node", TargetKind.NODE),
    DRAIN_NODE("drain-node", TargetKind.NODE),
    SHIFT_REPLICAS("shift-replicas", TargetKind.WORKLOAD),
    RESTART_NODE_AGENT("restart-node-agent", TargetKind.NODE),
    /** Target NODE/GPU (the GPU's index on the node, as nvidia-smi and dcgm-exporter's gpu label number it). */
    RESET_GPU("reset-gpu", TargetKind.NODE),
    REPAIR_NODE("repair-node", TargetKind.NODE),
    RETURN_NODE("return-node", TargetKind.NODE),
    /** DCGM diagnostics as a Job on a fenced node; a pass is what return-node takes it back on. */
    VALIDATE_NODE("validate-node", TargetKind.NODE);

    private final String wireName;
    private final TargetKind target;

    ActionKind(String wireName, TargetKind target) {
        this.wireName = wireName;
        this.target = target;
    }

    /** What the target names: a node, a pod or a workload. */
    public TargetKind target() {
        return target;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** True when the target is a node name; otherwise it is namespace/name. */
    public boolean targetsNode() {
        return target == TargetKind.NODE;
    }

    /**
     * The node an action on this target touches: the target itself, or the node part of reset-gpu's
     * NODE/GPU. Scope, opt-out and the pool's limits are judged on that node.
     */
    public String node(String target) {
        if (this == RESET_GPU && target != null && target.indexOf('/') > 0) {
            return target.substring(0, target.indexOf('/'));
        }
        return target;
    }

    /** The wire names, for messages that list them. */
    public static String wireNames() {
        StringBuilder b = new StringBuilder();
        for (ActionKind k : values()) b.append(b.isEmpty() ? "" : ", ").append(k.wireName);
        return b.toString();
    }

    @JsonCreator
    public static ActionKind parse(String s) {
        for (ActionKind k : values()) {
            if (k.wireName.equals(s)) return k;
        }
        throw new IllegalArgumentException("unknown action '" + s + "': expected one of " + wireNames());
    }
}
