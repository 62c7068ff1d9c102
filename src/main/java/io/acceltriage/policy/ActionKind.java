package io.acceltriage.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** The mitigations of the design, by the names scenarios, policies and the API use. */
public enum ActionKind {
    RESTART_POD("restart-pod", false),
    RESTART_GROUP("restart-group", false),
    CORDON_NODE("cordon-node", true),
    DRAIN_NODE("drain-node", true),
    SHIFT_REPLICAS("shift-replicas", false),
    RESTART_NODE_AGENT("restart-node-agent", true);

    private final String wireName;
    private final boolean targetsNode;

    ActionKind(String wireName, boolean targetsNode) {
        this.wireName = wireName;
        this.targetsNode = targetsNode;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** True when the target is a node name; otherwise it is namespace/name. */
    public boolean targetsNode() {
        return targetsNode;
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
