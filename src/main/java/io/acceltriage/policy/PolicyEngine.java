package io.acceltriage.policy;

import io.acceltriage.diagnosis.Family;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Gives every proposal a verdict with the rule that decided it. The checks run from the hardest
 * limit to the softest; the first that refuses decides. Refusal is the default: an action the
 * policy does not name is denied.
 */
public final class PolicyEngine {

    private static final Set<ActionKind> NODE_ACTIONS = Set.of(ActionKind.CORDON_NODE, ActionKind.DRAIN_NODE);

    private final Policy policy;
    private final ClusterFacts cluster;

    public PolicyEngine(Policy policy, ClusterFacts cluster) {
        this.policy = policy;
        this.cluster = cluster;
    }

    public Policy policy() {
        return policy;
    }

    public Verdict decide(Proposal p, PolicyContext ctx) {
        Policy.ActionRule rule = policy.rule(p.kind());
        String name = p.kind().wireName();
        if (rule == null) {
            return Verdict.deny("actions." + name, "the policy has no rule for " + name + "; add actions." + name + " to allow it");
        }
        if (rule.decision() == Decision.DENY) {
            return Verdict.deny("actions." + name + ".decision", "the policy denies " + name);
        }
        String familyProblem = familyProblem(p.kind(), ctx);
        if (familyProblem != null) {
            return Verdict.deny("family", familyProblem);
        }
        double min = rule.minConfidence() == null ? 0.8 : rule.minConfidence();
        if (ctx.confidence() < min) {
            return Verdict.deny("actions." + name + ".minConfidence", String.format(
                    "confidence %.2f is below the %.2f the policy requires for %s", ctx.confidence(), min, name));
        }
        String label = policy.optOutLabelOrDefault();
        if (cluster.optedOut(p.kind(), p.target(), label)) {
            return Verdict.deny("optOutLabel", p.target() + " carries the opt-out label " + label);
        }
        List<String> reasons = new ArrayList<>();
        if (NODE_ACTIONS.contains(p.kind())) {
            PoolState pool = cluster.poolOf(p.target());
            if (pool.targetCordoned()) {
                reasons.add(p.target() + " is already cordoned");
            } else {
                int cap = Math.max(1, (int) Math.floor(policy.maxCordonedShare() * pool.nodes()));
                if (pool.cordoned() + 1 > cap) {
                    return Verdict.deny("limits.maxCordonedShareOfPool", String.format(
                            "pool %s already has %d of %d nodes cordoned; one more exceeds the cap of %d (%.0f%%)",
                            pool.pool(), pool.cordoned(), pool.nodes(), cap, policy.maxCordonedShare() * 100));
                }
                if (pool.healthyOthers() == 0) {
                    return Verdict.deny("limits.keepLastHealthyNode", "no other node of pool " + pool.pool()
                            + " is ready and schedulable: " + p.target() + " stays in service");
                }
                reasons.add(String.format("pool %s: %d of %d nodes cordoned, cap %d", pool.pool(), pool.cordoned(), pool.nodes(), cap));
            }
        }
        reasons.add(String.format("confidence %.2f ≥ %.2f", ctx.confidence(), min));
        if (rule.decision() == Decision.APPROVE) {
            reasons.add(0, "the policy wants a person to approve " + name);
            return Verdict.approve("actions." + name + ".decision", reasons);
        }
        boolean dryRun = policy.globalDryRun() || Boolean.TRUE.equals(rule.dryRun());
        return Verdict.allow("actions." + name + ".decision", reasons, dryRun);
    }

    private static String familyProblem(ActionKind kind, PolicyContext ctx) {
        if (ctx.family() == Family.NONE) {
            return "no fault was found; nothing may run";
        }
        if (ctx.degradation() && kind != ActionKind.RESTART_POD) {
            return "the device is degraded, not failed: a person decides when to take it out";
        }
        switch (kind) {
            case CORDON_NODE:
            case DRAIN_NODE:
            case SHIFT_REPLICAS:
                return ctx.family() == Family.APPLICATION ? "an application fault never touches the node or moves other replicas" : null;
            case RESTART_NODE_AGENT:
                return ctx.family() != Family.INFRASTRUCTURE ? "a node agent restart needs an infrastructure diagnosis" : null;
            default:
                return null;
        }
    }
}
