package io.acceltriage.policy;

/**
 * How a node that needs a reboot goes to repair: {@code reboot-node}, or {@code replace-node} when its
 * pool's repairer cannot reboot (Karpenter) or the node is a repeat offender whose hardware must go.
 * {@code why}: the reason for a replacement in words (null for a reboot). The planner reads it to
 * propose; whether what it proposes may run is still {@link PolicyEngine#decide}'s.
 */
public record RepairRoute(ActionKind kind, String protocol, String why) {

    /** What a policy without {@code repair} gives every pool: the handshake repairer reboots. */
    public static final Routes REBOOT = (node, pool) -> new RepairRoute(ActionKind.REPAIR_NODE, "handshake", null);

    public boolean replace() {
        return kind == ActionKind.REPLACE_NODE;
    }

    /** The route for a node of a pool (null when unknown: the policy's default protocol). */
    @FunctionalInterface
    public interface Routes {
        RepairRoute route(String node, String pool);
    }
}
