package io.acceltriage.policy;

import io.acceltriage.cluster.ClusterFacts;
import io.acceltriage.cluster.ClusterUnreadable;
import io.acceltriage.cluster.PoolState;
import io.acceltriage.cluster.WorkloadFacts;
import io.acceltriage.diagnosis.Family;
import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Gives every proposal a verdict with the rule that decided it. The checks run from the hardest
 * limit to the softest; the first that refuses decides. Refusal is the default: an action the
 * policy does not name is denied. The policy is read afresh for every decision, so a hot reload
 * takes effect at the next proposal.
 */
public final class PolicyEngine {

    private final Supplier<Policy> policy;
    private final ClusterFacts cluster;
    private final ActionHistory history;
    private final Breaker breaker;
    private final Clock clock;
    private final FaultCounts faults;

    /** An engine without memory of past actions: replay and single decisions. */
    public PolicyEngine(Policy policy, ClusterFacts cluster) {
        this(() -> policy, cluster, ActionHistory.NONE, Breaker.inMemory(), Clock.systemUTC());
    }

    public PolicyEngine(Supplier<Policy> policy, ClusterFacts cluster, ActionHistory history, Breaker breaker, Clock clock) {
        this(policy, cluster, history, breaker, clock, FaultCounts.NONE);
    }

    /** {@code faults}: the GPUs' fault history, which the repeat-offender rule counts fatal XIDs in. */
    public PolicyEngine(Supplier<Policy> policy, ClusterFacts cluster, ActionHistory history, Breaker breaker, Clock clock,
            FaultCounts faults) {
        this.faults = faults;
        this.policy = policy;
        this.cluster = cluster;
        this.history = history;
        this.breaker = breaker;
        this.clock = clock;
    }

    public Policy policy() {
        return policy.get();
    }

    /**
     * The engine to judge one assessment's proposals with: the cluster is read once for all of them.
     * Take a new one per assessment; actions run in between change the cluster.
     */
    public PolicyEngine forOneAssessment() {
        ClusterFacts facts = cluster.forOneDecision();
        return facts == cluster ? this : new PolicyEngine(policy, facts, history, breaker, clock, faults);
    }

    /** The kinds that may wait for a gang's next checkpoint ({@link Proposal#atCheckpoint()}); others ignore the flag. */
    private static final java.util.Set<ActionKind> AT_CHECKPOINT = java.util.EnumSet.of(ActionKind.CORDON_NODE,
            ActionKind.RESTART_GROUP, ActionKind.DRAIN_NODE);

    public Verdict decide(Proposal p, PolicyContext ctx) {
        Policy pol = policy.get();
        Instant now = clock.instant();
        Policy.ActionRule rule = pol.rule(p.kind());
        String name = p.kind().wireName();
        if (rule == null) {
            return Verdict.deny("actions." + name, "the policy has no rule for " + name + "; add actions." + name + " to allow it");
        }
        if (rule.decision() == Decision.DENY) {
            return Verdict.deny("actions." + name + ".decision", "the policy denies " + name);
        }
        // A degraded device works: nothing is taken off it on its own. Taking a training gang off it at the
        // gang's next checkpoint (fence the node, restart the gang once it has saved) is offered to a person,
        // whatever the low confidence degradation carries; every other limit still applies. A device due for
        // replacement is emptied for the swap at that checkpoint (restart the gang, drain the node): a person
        // approves that too, at the confidence the rules ask for and within the windows and freezes.
        boolean atCheckpoint = p.atCheckpoint() && AT_CHECKPOINT.contains(p.kind());
        // A degraded device is never drained (it is not to be replaced yet): only its gang is moved.
        boolean degradedAtCheckpoint = atCheckpoint && ctx.degradation() && p.kind() != ActionKind.DRAIN_NODE;
        String familyProblem = degradedAtCheckpoint ? null : familyProblem(p.kind(), ctx);
        if (familyProblem != null) {
            return Verdict.deny("family", familyProblem);
        }
        double min = degradedAtCheckpoint ? 0 : rule.minConfidence() == null ? 0.8 : rule.minConfidence();
        if (ctx.confidence() < min) {
            return Verdict.deny("actions." + name + ".minConfidence", String.format(
                    "confidence %.2f is below the %.2f the policy requires for %s", ctx.confidence(), min, name));
        }
        try {
            Verdict v = judge(pol, rule, p, ctx, now, min, name);
            if (atCheckpoint && v.decision() != Decision.DENY) {
                List<String> reasons = new ArrayList<>(v.reasons());
                reasons.add(0, (ctx.degradation() ? "the device is degraded, not failed: a person approves taking the gang off it at its"
                        + " next checkpoint" : "the device still works until it is replaced: a person approves emptying it at the next"
                        + " checkpoint of the gang on it") + " (waits at most " + Durations.format(pol.checkpointMaxWait()) + ")");
                return new Verdict(Decision.APPROVE, v.decision() == Decision.ALLOW ? "checkpoints" : v.rule(), reasons, v.dryRun());
            }
            return v;
        } catch (ClusterUnreadable unreadable) {
            // Scopes, opt-outs and blast-radius caps read the live cluster: when it cannot be read the
            // engine does not know what an action would do, so nothing runs and a person decides.
            return Verdict.deny("cluster", "the policy could not read the cluster to check its limits (" + unreadable.getMessage()
                    + "): nothing runs on its own; check the Kubernetes API and decide by hand");
        }
    }

    /**
     * The locks to hold while confirming {@code p} and recording it ({@link #confirm}): its pool's for an action
     * that fences a node, its workload's (and, for a drain, those of the workloads on the node) for one that
     * takes replicas down. Two triages that could both pass one limit take turns at it; sorted, so holders of
     * several never wait for each other.
     */
    public List<String> locks(Proposal p) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        try {
            if (FENCES.contains(p.kind())) names.add("pool:" + cluster.poolOf(p.kind().node(p.target())).pool());
            if (p.kind() == ActionKind.DRAIN_NODE) cluster.workloadsOnNode(p.target()).forEach(w -> names.add("workload:" + w.ref()));
            if (p.kind() == ActionKind.RESTART_POD || p.kind() == ActionKind.RESTART_GROUP || p.kind() == ActionKind.SHIFT_REPLICAS) {
                names.add("workload:" + cluster.workloadOf(p.kind().target(), p.target()).map(WorkloadFacts::ref).orElse(p.target()));
            }
        } catch (ClusterUnreadable unreadable) {
            names.add("cluster"); // confirm denies anyway; one lock keeps the answer the same for everybody
        }
        return List.copyOf(names);
    }

    /**
     * The verdict of an allowed action again, as the last word before it is recorded PLANNED, counting the
     * actions other triages planned and have not applied yet (the cluster does not show them): the pool's
     * cordoned share and its last healthy node, the serving floor and a gang's restart. Call it holding
     * {@link #locks} until the action is recorded, so two triages (or two replicas) cannot both pass a limit
     * that has room for one; read {@code planned} (PLANNED, not dry runs) holding them too. An action already
     * recorded for the same incident is not confirmed again. The cluster is read again here, not taken from the
     * judgement: an action another triage planned after this one was judged may have been applied meanwhile (a
     * cordon planned, applied and verified is no longer PLANNED, and only the cluster shows it).
     */
    public Verdict confirm(Proposal p, Verdict v, List<ActionHistory.Past> planned) {
        if (v.decision() != Decision.ALLOW || v.dryRun()) return v;
        Policy pol = policy.get();
        ClusterFacts facts = cluster.forOneDecision();
        try {
            return new PolicyEngine(policy, facts, history, breaker, clock, faults).counting(pol, p, planned).orElse(v);
        } catch (ClusterUnreadable unreadable) {
            return Verdict.deny("cluster", "the policy could not read the cluster to check its limits (" + unreadable.getMessage()
                    + "): nothing runs on its own; check the Kubernetes API and decide by hand");
        }
    }

    /** Actions that fence a node: the pool's cap counts them. */
    private static final java.util.Set<ActionKind> FENCES = java.util.EnumSet.of(ActionKind.CORDON_NODE, ActionKind.DRAIN_NODE,
            ActionKind.RESET_GPU, ActionKind.REPAIR_NODE, ActionKind.REPLACE_NODE);

    private Optional<Verdict> counting(Policy pol, Proposal p, List<ActionHistory.Past> planned) {
        if (FENCES.contains(p.kind())) {
            String node = p.kind().node(p.target());
            PoolState pool = cluster.poolOf(node);
            if (!pool.targetCordoned()) {
                // Nodes of this pool that planned fences will cordon, and that are not cordoned yet.
                java.util.Set<String> fenced = new java.util.TreeSet<>();
                for (ActionHistory.Past a : planned) {
                    String other = FENCES.contains(a.kind()) ? a.kind().node(a.target()) : null;
                    if (other == null || other.equals(node) || fenced.contains(other)) continue;
                    PoolState theirs = cluster.poolOf(other);
                    if (theirs.pool().equals(pool.pool()) && !theirs.targetCordoned()) fenced.add(other);
                }
                int cap = Math.max(1, (int) Math.floor(pol.maxCordonedShare() * pool.nodes()));
                if (pool.cordoned() + fenced.size() + 1 > cap) {
                    return Optional.of(Verdict.deny("limits.maxCordonedShareOfPool", fenced.isEmpty()
                            ? String.format("pool %s has %d of %d nodes cordoned now (fenced since this incident was judged); one"
                                    + " more exceeds the cap of %d (%.0f%%)", pool.pool(), pool.cordoned(), pool.nodes(), cap,
                                    pol.maxCordonedShare() * 100)
                            : String.format("pool %s has %d of %d nodes cordoned and %d more about to be (%s, planned by other"
                                    + " incidents); one more exceeds the cap of %d (%.0f%%)", pool.pool(), pool.cordoned(), pool.nodes(),
                                    fenced.size(), String.join(", ", fenced), cap, pol.maxCordonedShare() * 100)));
                }
                if (pol.keepLastHealthyNode() && pool.healthyOthers() - fenced.size() <= 0) {
                    return Optional.of(Verdict.deny("limits.keepLastHealthyNode", "no other node of pool " + pool.pool()
                            + " stays ready and schedulable" + (fenced.isEmpty() ? "" : " once the planned fences of "
                            + String.join(", ", fenced) + " land") + ": " + p.target() + " stays in service"));
                }
            }
        }
        if (p.kind() == ActionKind.RESTART_GROUP) {
            for (ActionHistory.Past a : planned) {
                if (a.kind() == ActionKind.RESTART_GROUP && a.target().equals(p.target())) {
                    return Optional.of(Verdict.deny("limits.wholeGangsOnly", "a restart of gang " + p.target()
                            + " is already planned (at " + a.at() + "): one restart of a gang at a time"));
                }
            }
        }
        if (pol.keepServingFloor()) {
            List<WorkloadFacts> hit = switch (p.kind()) {
                case RESTART_POD, SHIFT_REPLICAS -> cluster.workloadOf(p.kind().target(), p.target()).stream().toList();
                case DRAIN_NODE -> cluster.workloadsOnNode(p.target());
                default -> List.of();
            };
            for (WorkloadFacts w : hit) {
                if (!w.serving()) continue;
                long down = planned.stream().filter(a -> !a.target().equals(p.target()) && takesDown(a, w)).count();
                if (w.ready() - down - 1 < w.needed()) {
                    return Optional.of(Verdict.deny("limits.keepServingFloor", String.format(
                            "%s has %d of %d replicas ready and %d about to go down (planned by other incidents); it needs %d:"
                                    + " one fewer breaks its serving floor", w.ref(), w.ready(), w.replicas(), down, w.needed())));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a planned action takes a replica of {@code w} down: a restart of one of its pods, or a drain of a node it runs on. */
    private boolean takesDown(ActionHistory.Past a, WorkloadFacts w) {
        return switch (a.kind()) {
            case RESTART_POD, SHIFT_REPLICAS -> a.target().startsWith(w.ref() + "-");
            case DRAIN_NODE -> cluster.workloadsOnNode(a.target()).stream().anyMatch(x -> x.ref().equals(w.ref()));
            default -> false;
        };
    }

    private Verdict judge(Policy pol, Policy.ActionRule rule, Proposal p, PolicyContext ctx, Instant now, double min, String name) {
        Optional<Verdict> refusal = frozen(pol, now)
                .or(() -> breakerOpen())
                .or(() -> outOfScope(pol, p))
                .or(() -> optedOut(pol, p))
                .or(() -> repeatOffender(pol, p, now))
                .or(() -> failedValidation(p))
                .or(() -> coolingDown(rule, p, now))
                .or(() -> overBudget(pol, p, now))
                .or(() -> tooManyActions(pol, now));
        if (refusal.isPresent()) {
            return refusal.get();
        }
        List<String> reasons = new ArrayList<>();
        Optional<Verdict> radius = blastRadius(pol, p, reasons);
        if (radius.isPresent()) {
            return radius.get();
        }
        reasons.add(String.format("confidence %.2f ≥ %.2f", ctx.confidence(), min));
        if (rule.decision() == Decision.APPROVE) {
            reasons.add(0, "the policy wants a person to approve " + name);
            return Verdict.approve("actions." + name + ".decision", reasons);
        }
        if (Boolean.TRUE.equals(rule.maintenanceOnly()) && !inMaintenanceWindow(pol, now)) {
            reasons.add(0, name + " runs on its own only in a maintenance window; outside one a person approves it");
            return Verdict.approve("actions." + name + ".maintenanceOnly", reasons);
        }
        boolean dryRun = pol.globalDryRun() || Boolean.TRUE.equals(rule.dryRun());
        if (dryRun) {
            reasons.add(pol.globalDryRun() ? "dry run (policy-wide): the API server validates, nothing changes"
                    : "dry run for " + name + ": the API server validates, nothing changes");
        }
        return Verdict.allow("actions." + name + ".decision", reasons, dryRun);
    }

    private Optional<Verdict> frozen(Policy pol, Instant now) {
        if (pol.changeFreezes() == null) return Optional.empty();
        for (Policy.Freeze f : pol.changeFreezes()) {
            if (!now.isBefore(f.from()) && now.isBefore(f.to())) {
                return Optional.of(Verdict.deny("changeFreezes", "change freeze until " + f.to()
                        + (f.reason() == null ? "" : " (" + f.reason() + ")") + ": nothing changes, a person decides"));
            }
        }
        return Optional.empty();
    }

    private Optional<Verdict> breakerOpen() {
        return breaker.tripped().map(t -> Verdict.deny("breaker", "the circuit breaker tripped at " + t.at() + " (" + t.reason()
                + "); every action escalates until a person resets it: POST /api/v1/breaker/reset"));
    }

    private Optional<Verdict> outOfScope(Policy pol, Proposal p) {
        Policy.Scope s = pol.scope();
        if (s == null) return Optional.empty();
        if (p.kind().targetsNode()) {
            if (s.pools() != null && !s.pools().isEmpty()) {
                String pool = cluster.poolOf(p.kind().node(p.target())).pool();
                if (!s.pools().contains(pool)) {
                    return Optional.of(Verdict.deny("scope.pools", "pool " + pool + " of " + p.target()
                            + " is outside the policy's scope " + s.pools()));
                }
            }
        } else if (p.kind() != ActionKind.PAUSE_ROLLOUT) {
            // A node agent's DaemonSet lives in the accelerator stack's namespace, which the scope leaves to
            // people; holding its rollout changes nothing on a node, so the namespace scope does not bar it.
            String ns = p.target().contains("/") ? p.target().substring(0, p.target().indexOf('/')) : "";
            if (s.excludeNamespaces() != null && s.excludeNamespaces().contains(ns)) {
                return Optional.of(Verdict.deny("scope.excludeNamespaces", "namespace " + ns + " is excluded by the policy"));
            }
            if (s.namespaces() != null && !s.namespaces().isEmpty() && !s.namespaces().contains(ns)) {
                return Optional.of(Verdict.deny("scope.namespaces", "namespace " + ns + " is outside the policy's scope "
                        + s.namespaces()));
            }
        }
        boolean selects = (s.matchLabels() != null && !s.matchLabels().isEmpty())
                || (s.excludeLabels() != null && !s.excludeLabels().isEmpty());
        if (selects) {
            Map<String, String> labels = cluster.labelsOf(p.kind().target(), p.kind().node(p.target()));
            if (s.excludeLabels() != null) {
                for (Map.Entry<String, String> e : s.excludeLabels().entrySet()) {
                    if (e.getValue().equals(labels.get(e.getKey()))) {
                        return Optional.of(Verdict.deny("scope.excludeLabels", p.target() + " carries " + e.getKey() + "="
                                + e.getValue() + ", which the policy leaves to people"));
                    }
                }
            }
            if (s.matchLabels() != null) {
                for (Map.Entry<String, String> e : s.matchLabels().entrySet()) {
                    if (!e.getValue().equals(labels.get(e.getKey()))) {
                        return Optional.of(Verdict.deny("scope.matchLabels", p.target() + " lacks " + e.getKey() + "="
                                + e.getValue() + ", which the policy's scope requires"));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private Optional<Verdict> optedOut(Policy pol, Proposal p) {
        String label = pol.optOutLabelOrDefault();
        if (cluster.optedOut(p.kind().target(), p.kind().node(p.target()), label)) {
            return Optional.of(Verdict.deny("optOutLabel", p.target() + " carries the opt-out label " + label));
        }
        return Optional.empty();
    }

    /**
     * NVSentinel's repeat-offender rules: a GPU with {@code fatalXidsPerGpu} fatal XIDs in the window
     * (counted in the fault history, each incident's sighting of an XID once, the one this reset answers
     * included), or a node remediated {@code remediationsPerNode} times in the window (counted in the
     * actions table, this proposal included), is not reset, repaired or returned automatically any more:
     * the hardware goes to support for replacement.
     */
    private Optional<Verdict> repeatOffender(Policy pol, Proposal p, Instant now) {
        if (p.kind() != ActionKind.RESET_GPU && p.kind() != ActionKind.REPAIR_NODE && p.kind() != ActionKind.RETURN_NODE) {
            return Optional.empty();
        }
        if (returnsReplacement(p)) return Optional.empty();
        String node = p.kind().node(p.target());
        if (p.kind() == ActionKind.RESET_GPU) {
            // The XID this reset answers is this triage's, recorded in the history only once the triage is stored.
            List<Instant> xids = faults.fatalXids(node, p.target().substring(p.target().indexOf('/') + 1), now.minus(pol.xidWindow()));
            if (xids.size() + 1 >= pol.fatalXidsPerGpu()) {
                return Optional.of(Verdict.deny("repeatOffenders.fatalXidsPerGpu", String.format(
                        "repeat offender: GPU %s has had %d fatal XIDs in the last %s (the limit is %d; earlier"
                                + " ones at %s): no more automatic resets, contact support to replace the GPU",
                        p.target(), xids.size() + 1, Durations.format(pol.xidWindow()), pol.fatalXidsPerGpu(),
                        xids.isEmpty() ? "none" : String.join(", ", xids.stream().map(Instant::toString).toList()))));
            }
        }
        if (p.kind() == ActionKind.RETURN_NODE) {
            // A node holding a GPU over the fatal-XID limit is never returned automatically: it goes to support.
            for (Map.Entry<String, List<Instant>> g : faults.fatalXidsByGpu(node, now.minus(pol.xidWindow())).entrySet()) {
                if (g.getValue().size() >= pol.fatalXidsPerGpu()) {
                    return Optional.of(Verdict.deny("repeatOffenders.fatalXidsPerGpu", String.format(
                            "repeat offender: GPU %s/%s has had %d fatal XIDs in the last %s (the limit is %d; at %s): the node"
                                    + " stays fenced, contact support to replace the GPU", node, g.getKey(), g.getValue().size(),
                            Durations.format(pol.xidWindow()), pol.fatalXidsPerGpu(),
                            String.join(", ", g.getValue().stream().map(Instant::toString).toList()))));
                }
            }
        }
        List<ActionHistory.Past> remediations = history.since(now.minus(pol.remediationWindow())).stream()
                .filter(a -> remediates(a.kind()) && a.kind().node(a.target()).equals(node)).toList();
        if (p.kind() != ActionKind.RETURN_NODE ? remediations.size() + 1 >= pol.remediationsPerNode()
                : remediations.size() >= pol.remediationsPerNode()) {
            return Optional.of(Verdict.deny("repeatOffenders.remediationsPerNode", String.format(
                    "repeat offender: node %s has been remediated %d times in the last %s (%s; at most %d): it stays fenced,"
                            + " contact support to replace it", node, remediations.size() + (p.kind() != ActionKind.RETURN_NODE ? 1 : 0),
                    Durations.format(pol.remediationWindow()), remediations.stream().map(a -> a.kind().wireName() + " " + a.target()
                            + " at " + a.at()).toList(), pol.remediationsPerNode())));
        }
        return Optional.empty();
    }

    /**
     * The "fail: the node stays fenced and a person gets the diagnostic's own words": a node whose last
     * validation failed is not returned on anyone's word. The replacement a replacing route returns is new hardware
     * that the old node's diagnostic says nothing about, as with the repeat-offender rules.
     */
    private Optional<Verdict> failedValidation(Proposal p) {
        if (p.kind() != ActionKind.RETURN_NODE || returnsReplacement(p)) return Optional.empty();
        return cluster.failedValidation(p.target()).map(words -> Verdict.deny("validation", "node " + p.target()
                + " failed its last validation: " + words + "; it stays fenced until a person has looked (replace or repair it,"
                + " then validate-node again)"));
    }

    /**
     * How {@code node} of {@code pool} goes to repair when it needs a reboot: replaced when its pool's repairer
     * cannot reboot ({@link Policy#repairCanReboot}), or when the repeat-offender rules would refuse its reboot or
     * its return (the hardware must go; every protocol can replace); rebooted otherwise. The planner proposes
     * what this says, {@link #decide} still judges it (a replacement asks a person unless the policy says otherwise).
     */
    public RepairRoute repairRoute(String node, String pool) {
        Policy pol = policy.get();
        if (pol == null) return RepairRoute.REBOOT.route(node, pool);
        String protocol = pol.repairProtocol(pool);
        if (!pol.repairCanReboot(pool)) {
            return new RepairRoute(ActionKind.REPLACE_NODE, protocol, protocol + " never reboots a node");
        }
        // Whether this repairer reboots is the cluster's (Cluster API: the health check's template) or the policy's own
        // (medik8s: the remediation kind acceltriage creates); a reboot asked of one that replaces would wait in vain.
        if ("clusterapi".equals(protocol) && cluster != null) {
            Optional<String> replaced = cluster.machineReplacedOnRepair(node);
            if (replaced.isPresent()) return new RepairRoute(ActionKind.REPLACE_NODE, protocol, replaced.get());
        }
        if ("medik8s".equals(protocol) && pol.remediation() != null && Policy.REPLACING_REMEDIATIONS.contains(pol.remediation().kind())) {
            return new RepairRoute(ActionKind.REPLACE_NODE, protocol, "its remediation " + pol.remediation().kind()
                    + " deletes the node's Machine, it never reboots");
        }
        Instant now = clock.instant();
        Optional<Verdict> offender = repeatOffender(pol, new Proposal(ActionKind.REPAIR_NODE, node, "", List.of(), "policy"), now)
                .or(() -> repeatOffender(pol, new Proposal(ActionKind.RETURN_NODE, node, "", List.of(), "policy"), now));
        return offender.map(v -> new RepairRoute(ActionKind.REPLACE_NODE, protocol, String.join("; ", v.reasons())))
                .orElseGet(() -> new RepairRoute(ActionKind.REPAIR_NODE, protocol, null));
    }

    /**
     * How GPU {@code gpu} of {@code node} recovers from a fault a reset clears: reset, unless the repeat-offender rules would
     * refuse that reset ({@link #repeatOffender} counts this triage's XID, not stored yet, as the one the reset answers);
     * then the node goes to its pool's repairer to be replaced, as {@link #repairRoute} sends a repeat offender that
     * needs a reboot. Proposing the reset only to refuse it would leave the node fenced with no way back planned.
     */
    public RepairRoute resetRoute(String node, String gpu, String pool) {
        Policy pol = policy.get();
        if (pol == null) return RepairRoute.RESET;
        Proposal reset = new Proposal(ActionKind.RESET_GPU, node + "/" + gpu, "", List.of(), "policy");
        return repeatOffender(pol, reset, clock.instant())
                .map(v -> new RepairRoute(ActionKind.REPLACE_NODE, pol.repairProtocol(pool), String.join("; ", v.reasons())))
                .orElse(RepairRoute.RESET);
    }

    /** Both of this policy's routes, as the planner asks them: a node's way to repair and a GPU's way back from a reset-class fault. */
    public RepairRoute.Routes routes() {
        return new RepairRoute.Routes() {
            @Override
            public RepairRoute route(String node, String pool) {
                return repairRoute(node, pool);
            }

            @Override
            public RepairRoute resetRoute(String node, String gpu, String pool) {
                return PolicyEngine.this.resetRoute(node, gpu, pool);
            }
        };
    }

    /**
     * A return-node the rules planned behind this node's repair route when that route replaces it: what it returns is
     * the replacement ({@code RepairSteps.target}: it runs only after replace-node succeeded, on the node that joined in
     * the old one's place), new hardware the old node's history says nothing about. The rules planner always pairs its
     * return-node with the route's hand-over ({@link Proposal#BY_RULES});
     * a return another proposer asks for is judged on the old node's history as before.
     */
    private boolean returnsReplacement(Proposal p) {
        return p.kind() == ActionKind.RETURN_NODE && Proposal.BY_RULES.equals(p.proposedBy()) && policy.get() != null
                && repairRoute(p.target(), null).replace();
    }

    /** What counts as one remediation of a node: a GPU reset on it, or a hand-over to repair. */
    private static boolean remediates(ActionKind k) {
        return k == ActionKind.RESET_GPU || k == ActionKind.REPAIR_NODE;
    }

    private Optional<Verdict> coolingDown(Policy.ActionRule rule, Proposal p, Instant now) {
        if (rule.cooldown() == null) return Optional.empty();
        Duration cooldown = Durations.parse(rule.cooldown());
        return history.since(now.minus(cooldown)).stream()
                .filter(a -> a.kind() == p.kind() && a.target().equals(p.target()))
                .reduce((a, b) -> b)
                .map(last -> Verdict.deny("actions." + p.kind().wireName() + ".cooldown", p.kind().wireName() + " ran on "
                        + p.target() + " at " + last.at() + "; the cooldown of " + rule.cooldown() + " lasts until "
                        + last.at().plus(cooldown)));
    }

    private Optional<Verdict> overBudget(Policy pol, Proposal p, Instant now) {
        List<Policy.Budget> budgets = pol.budgetsOrEmpty();
        for (int i = 0; i < budgets.size(); i++) {
            Policy.Budget b = budgets.get(i);
            boolean any = "*".equals(b.action());
            if (!any && ActionKind.parse(b.action()) != p.kind()) continue;
            String per = b.per() == null ? "target" : b.per();
            String scope = switch (per) {
                case "fleet" -> null;
                case "workload" -> workloadPrefix(p);
                default -> p.target();
            };
            if ("workload".equals(per) && scope == null) continue;
            List<ActionHistory.Past> past = history.since(now.minus(Durations.parse(b.window())));
            long used = past.stream()
                    .filter(a -> any || a.kind() == p.kind() || ("workload".equals(per) && restarts(a.kind()) && restarts(p.kind())))
                    .filter(a -> scope == null || ("workload".equals(per) ? a.target().startsWith(scope) || a.target().equals(stripDash(scope))
                            : a.target().equals(scope)))
                    .count();
            if (used >= b.max()) {
                String what = any ? "actions" : b.action();
                String where = switch (per) {
                    case "fleet" -> "fleet-wide";
                    case "workload" -> "for workload " + stripDash(scope);
                    default -> "on " + p.target();
                };
                return Optional.of(Verdict.deny("budgets[" + i + "]", String.format("budget spent: %d %s %s in the last %s (at most %d)",
                        used, what, where, b.window(), b.max())));
            }
        }
        return Optional.empty();
    }

    /** A controller names its pods after the workload, so its restarts are the targets under "ns/name-". */
    private String workloadPrefix(Proposal p) {
        if (p.kind().targetsNode()) return null;
        return cluster.workloadOf(p.kind().target(), p.target()).map(w -> w.ref() + "-")
                .orElse(p.kind() == ActionKind.RESTART_POD ? null : p.target() + "-");
    }

    private static String stripDash(String s) {
        return s.endsWith("-") ? s.substring(0, s.length() - 1) : s;
    }

    private static boolean restarts(ActionKind k) {
        return k == ActionKind.RESTART_POD || k == ActionKind.RESTART_GROUP || k == ActionKind.SHIFT_REPLICAS;
    }

    private Optional<Verdict> tooManyActions(Policy pol, Instant now) {
        int used = history.since(now.minus(pol.breakerWindow())).size();
        if (used >= pol.breakerMaxActions()) {
            String why = String.format("%d actions in the last %s reached the breaker's limit of %d", used,
                    Durations.format(pol.breakerWindow()), pol.breakerMaxActions());
            breaker.trip(why);
            return Optional.of(Verdict.deny("breaker.maxActions", why + "; the breaker tripped and every action now escalates"
                    + " until a person resets it"));
        }
        return Optional.empty();
    }

    private Optional<Verdict> blastRadius(Policy pol, Proposal p, List<String> reasons) {
        switch (p.kind()) {
            case CORDON_NODE, DRAIN_NODE, RESET_GPU, REPAIR_NODE, REPLACE_NODE -> {
                // A GPU reset and a hand-over to repair both fence the node first: the pool's cap holds for them too.
                Optional<Verdict> pool = poolCap(pol, p, reasons);
                if (pool.isPresent() || p.kind() != ActionKind.DRAIN_NODE) return pool;
                for (WorkloadFacts w : cluster.workloadsOnNode(p.target())) {
                    if (w.gang() && pol.wholeGangsOnly() && p.atCheckpoint() && Proposal.BY_RULES.equals(p.proposedBy())) {
                        // The rules pair a drain at a checkpoint with the whole restart of each checkpointing gang on the
                        // node, and the executor runs the drain only after those restarts: it never stops part of a gang.
                        reasons.add("the drain runs after " + w.ref() + " restarts whole (proposed with it)");
                        continue;
                    }
                    if (w.gang() && pol.wholeGangsOnly()) {
                        return Optional.of(Verdict.deny("limits.wholeGangsOnly", "draining " + p.target() + " would stop part of gang "
                                + w.ref() + " (" + w.kind() + "); restart the whole group instead"));
                    }
                    if (w.serving() && pol.keepServingFloor() && w.ready() - 1 < w.needed()) {
                        reasons.add("the drain waits for " + w.ref() + ": " + w.ready() + " ready, " + w.needed() + " needed");
                    }
                }
                return Optional.empty();
            }
            case RESTART_POD -> {
                Optional<WorkloadFacts> w = cluster.workloadOf(p.kind().target(), p.target());
                if (w.isPresent() && w.get().gang() && pol.wholeGangsOnly()) {
                    return Optional.of(Verdict.deny("limits.wholeGangsOnly", p.target() + " is one member of gang " + w.get().ref()
                            + "; never half a gang: restart the group instead"));
                }
                if (w.isPresent() && w.get().serving() && pol.keepServingFloor() && w.get().ready() - 1 < w.get().needed()) {
                    return Optional.of(Verdict.deny("limits.keepServingFloor", floor(w.get())));
                }
                return Optional.empty();
            }
            case SHIFT_REPLICAS -> {
                Optional<WorkloadFacts> w = cluster.workloadOf(p.kind().target(), p.target());
                if (w.isPresent() && pol.keepServingFloor() && w.get().ready() - 1 < w.get().needed()) {
                    if (!w.get().spareCapacity()) {
                        return Optional.of(Verdict.deny("limits.keepServingFloor", floor(w.get()) + ", and no healthy node has room"
                                + " for an extra replica"));
                    }
                    reasons.add(w.get().ref() + " scales up by one first: " + w.get().ready() + " ready, " + w.get().needed() + " needed");
                }
                return Optional.empty();
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    private static String floor(WorkloadFacts w) {
        return String.format("%s has %d of %d replicas ready and needs %d: one fewer breaks its serving floor", w.ref(),
                w.ready(), w.replicas(), w.needed());
    }

    private Optional<Verdict> poolCap(Policy pol, Proposal p, List<String> reasons) {
        PoolState pool = cluster.poolOf(p.kind().node(p.target()));
        if (pool.targetCordoned()) {
            reasons.add(p.kind().node(p.target()) + " is already cordoned");
            return Optional.empty();
        }
        int cap = Math.max(1, (int) Math.floor(pol.maxCordonedShare() * pool.nodes()));
        if (pool.cordoned() + 1 > cap) {
            String why = String.format("pool %s already has %d of %d nodes cordoned; one more exceeds the cap of %d (%.0f%%)",
                    pool.pool(), pool.cordoned(), pool.nodes(), cap, pol.maxCordonedShare() * 100);
            if (pol.tripOnPoolCap()) {
                breaker.trip("pool " + pool.pool() + " wanted more nodes fenced than its cap of " + cap
                        + ": a fleet-wide cause is likelier than " + (pool.cordoned() + 1) + " broken nodes");
                return Optional.of(new Verdict(Decision.DENY, "limits.maxCordonedShareOfPool",
                        List.of(why, "the circuit breaker is tripped: every action escalates until a person resets it"), false));
            }
            return Optional.of(Verdict.deny("limits.maxCordonedShareOfPool", why));
        }
        if (pol.keepLastHealthyNode() && pool.healthyOthers() == 0) {
            return Optional.of(Verdict.deny("limits.keepLastHealthyNode", "no other node of pool " + pool.pool()
                    + " is ready and schedulable: " + p.target() + " stays in service"));
        }
        reasons.add(String.format("pool %s: %d of %d nodes cordoned, cap %d", pool.pool(), pool.cordoned(), pool.nodes(), cap));
        return Optional.empty();
    }

    static boolean inMaintenanceWindow(Policy pol, Instant now) {
        if (pol.maintenanceWindows() == null) return false;
        for (Policy.MaintenanceWindow w : pol.maintenanceWindows()) {
            ZonedDateTime t = now.atZone(Policy.zone(w));
            LocalTime start = Policy.time(w.start());
            LocalTime end = Policy.time(w.end());
            boolean overnight = end.isBefore(start);
            LocalTime tod = t.toLocalTime();
            boolean inTime = overnight ? !tod.isBefore(start) || tod.isBefore(end) : !tod.isBefore(start) && tod.isBefore(end);
            // An overnight window belongs to the day it starts on.
            DayOfWeek day = overnight && tod.isBefore(end) ? t.getDayOfWeek().minus(1) : t.getDayOfWeek();
            boolean onDay = w.days() == null || w.days().isEmpty()
                    || w.days().stream().map(PolicyValidator::day).anyMatch(day::equals);
            if (inTime && onDay) return true;
        }
        return false;
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
            case RESET_GPU:
                return ctx.family() != Family.DEVICE ? "a GPU reset needs a device diagnosis" : null;
            case REPAIR_NODE:
            case REPLACE_NODE:
            case RETURN_NODE:
            case VALIDATE_NODE:
                return ctx.family() == Family.APPLICATION ? "an application fault never sends a node to repair" : null;
            case PAUSE_ROLLOUT:
                return ctx.family() != Family.INFRASTRUCTURE ? "pausing a node-agent rollout needs an infrastructure diagnosis" : null;
            default:
                return null;
        }
    }
}
