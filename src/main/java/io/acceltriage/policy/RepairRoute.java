package io.acceltriage.policy;

/**
 * How a node that needs a reboot goes to repair: {@code reboot-node}, or {@code replace-node} when its
 * pool's repairer cannot reboot (Karpenter) or the node is a repeat offender whose hardware must go; and how a
 * GPU a reset would clear recovers: {@code reset-gpu}, or {@code replace-node} when its reset would be refused as
 * a repeat offender's. {@code why}: the reason for a replacement in words (null otherwise). The planner reads it
 * to propose; whether what it proposes may run is still {@link PolicyEngine#decide}'s.
 */
public record RepairRoute(ActionKind kind, String protocol, String why) {

    /** What a policy without {@code repair} gives every pool: the handshake repairer reboots. */
    public static final Routes REBOOT = (node, pool) -> new RepairRoute(ActionKind.REPAIR_NODE, "handshake", null);

    /** A GPU reset goes ahead as proposed (the policy still judges it). */
    public static final RepairRoute RESET = new RepairRoute(ActionKind.RESET_GPU, null, null);

    public boolean replace() {
        return kind == ActionKind.REPLACE_NODE;
    }

    /** The route for a node of a pool (null when unknown: the policy's default protocol). */
    @FunctionalInterface
    public interface Routes {
        RepairRoute route(String node, String pool);

        /**
         * The way back for GPU {@code gpu} of {@code node} when a reset would clear its fault: {@link #RESET}, or the
         * node's replacement when the policy would refuse that reset (a repeat offender: another reset only schedules
         * the next fault). Routes that know no history say reset, and the policy still refuses it when it must.
         */
        default RepairRoute resetRoute(String node, String gpu, String pool) {
            return RESET;
        }
    }
}
