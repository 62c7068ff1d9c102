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
    RESTART_NODE_AGENT("restart-node-agent", TargetKind.NODE);

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

    @JsonCreator
    public static ActionKind parse(String s) {
        for (ActionKind k : values()) {
            if (k.wireName.equals(s)) return k;
        }
        throw new IllegalArgumentException("unknown action '" + s + "': expected one of restart-pod, restart-group,"
                + " cordon-node, drain-node, shift-replicas, restart-node-agent");
    }
}
