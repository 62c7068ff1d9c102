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
    /**
     * The node handed to its pool's repairer to be rebooted ({@code repair.protocol}), back as the same
     * node with a new boot id. Its wire name was {@code repair-node} before replace-node existed; that
     * name still parses to it, so older scenarios, policies and stored actions keep their meaning.
     */
    REPAIR_NODE("reboot-node", TargetKind.NODE, "repair-node"),
    /** The node handed to its pool's repairer to be replaced: a new node joins the pool and stands in for it. */
    REPLACE_NODE("replace-node", TargetKind.NODE),
    RETURN_NODE("return-node", TargetKind.NODE),
    /** DCGM diagnostics as a Job on a fenced node; a pass is what return-node takes it back on. */
    VALIDATE_NODE("validate-node", TargetKind.NODE),
    /** Target namespace/daemonset: a node-agent rollout a fleet-wide fault follows, held at OnDelete. */
    PAUSE_ROLLOUT("pause-rollout", TargetKind.WORKLOAD);

    private final String wireName;
    private final TargetKind target;
    /** An earlier wire name that still parses to this kind (never written out). */
    private final String formerName;

    ActionKind(String wireName, TargetKind target) {
        this(wireName, target, null);
    }

    ActionKind(String wireName, TargetKind target, String formerName) {
        this.wireName = wireName;
        this.target = target;
        this.formerName = formerName;
    }

    /** The earlier wire name that still means this kind, or null. */
    public String formerName() {
        return formerName;
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
            if (k.wireName.equals(s) || (k.formerName != null && k.formerName.equals(s))) return k;
        }
        throw new IllegalArgumentException("unknown action '" + s + "': expected one of " + wireNames());
    }
}
