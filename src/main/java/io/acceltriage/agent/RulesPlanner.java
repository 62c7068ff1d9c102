package io.acceltriage.agent;

import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.Finding;
import io.acceltriage.diagnosis.XidCatalogue;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.PodPlacement;
import io.acceltriage.evidence.Workload;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.RepairRoute;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The no-model planner: turns a diagnosis and the workload topology into the design's first
 * mitigations. A device fault fences the node and moves what it hurts (serving replicas shift, gangs
 * restart whole, single controlled pods restart elsewhere); an infrastructure fault restarts the node
 * agent when that can help and fences a node that cannot serve; an application fault restarts only
 * when a restart is expected to clear it and never touches the node.
 */
public final class RulesPlanner {

    public static final String BY = io.acceltriage.policy.Proposal.BY_RULES;

    /** Log signatures that mean the node cannot run accelerator work until a person fixes it ({@code cannotServe} in the catalogue). */
    private static final Set<String> NODE_CANNOT_SERVE = io.acceltriage.evidence.SignatureCatalogue.load().cannotServe();

    private final XidCatalogue xids;

    /** Taints the node lifecycle controller puts on a node whose kubelet stopped reporting. */
    private static final Set<String> NODE_CONTROLLER_TAINTS = Set.of("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready");

    public RulesPlanner() {
        this(XidCatalogue.load());
    }

    /** The catalogue says which XIDs a GPU reset recovers from and which need the node rebooted. */
    public RulesPlanner(XidCatalogue xids) {
        this.xids = xids;
    }

    /** A plan under a policy that reboots every node sent to repair (tests of the rules alone). */
    public Plan plan(Diagnosis d, EvidenceBundle b) {
        return plan(d, b, RepairRoute.REBOOT);
    }

    /**
     * {@code routes}: how each pool's nodes go to repair (the policy's protocol per pool, repeat offenders
     * replaced), read from the policy engine; what is proposed is still judged by it.
     */
    public Plan plan(Diagnosis d, EvidenceBundle b, RepairRoute.Routes routes) {
        List<Proposal> proposals = new ArrayList<>();
        List<String> escalate = new ArrayList<>();
        switch (d.family()) {
            case DEVICE -> planDevice(d, b, routes, proposals, escalate);
            case INFRASTRUCTURE -> planInfrastructure(d, b, proposals, escalate);
            case APPLICATION -> planApplication(d, b, proposals, escalate);
            case NONE -> { }
        }
        spareLeavingNodes(leavingNodes(d, b), proposals, escalate);
        d.findings().stream().filter(f -> io.acceltriage.diagnosis.Classifier.TENANT_CLAIM.equals(f.group())).findFirst()
                .ifPresent(f -> escalate.add("a tenant source claims a hardware fault no platform source shows (a person checks the"
                        + " device and who wrote the claim): " + f.cause()));
        if (d.family() != Family.NONE && !b.gaps().isEmpty()) {
            escalate.add("some evidence could not be read: " + b.gaps().get(0).reason());
        } else if (d.family() == Family.NONE) {
            // "No fault found" is only an answer when every source answered; otherwise it is a guess.
            // A planned change (a MIG reconfiguration) pauses the node's exporter with its other GPU clients: its silence is that change.
            boolean planned = d.findings().stream().anyMatch(f -> f.group().startsWith(io.acceltriage.diagnosis.Classifier.PLANNED));
            b.gaps().stream().filter(Gap::failed).filter(g -> !(planned && g.source() == io.acceltriage.evidence.Source.METRICS))
                    .findFirst().ifPresent(g -> escalate.add("no fault found, but "
                    + g.source().name().toLowerCase() + " could not be read, so one may be missed: " + g.reason()));
            // Nor when the workload is visibly down or stalled: the family is unsettled, the outage is not.
            brokenWorkload(b).ifPresent(w -> escalate.add("no fault family could be settled, but " + w + "; looked at: "
                    + String.join("; ", b.consulted())));
        }
        return new Plan(dedupe(proposals), escalate);
    }

    private void planDevice(Diagnosis d, EvidenceBundle b, RepairRoute.Routes routes, List<Proposal> out, List<String> escalate) {
        List<String> cited = d.evidenceIds();
        if (d.nodeMayStay()) {
            escalate.add(d.degradation() ? "device degradation on " + b.node() + ": " + d.cause() + "; plan a reset or replacement"
                    : "contained device error on " + b.node() + ": " + d.cause());
            if (!d.degradation()) {
                for (PodPlacement p : affectedPods(d, b)) {
                    restartWorkloadOf(p, b, "restart the workload after a contained device error", cited, out);
                }
            } else {
                atNextCheckpoint(d, b, cited, out);
            }
            return;
        }
        List<String> nodes = faultNodes(d, b);
        if (nodes.isEmpty()) {
            escalate.add("device fault but the node is unknown: " + d.cause());
            return;
        }
        if (!platformBacked(d, b)) {
            escalate.add("the device fault on " + String.join(", ", nodes) + " rests only on tenant sources; fencing shared hardware"
                    + " needs a platform source (exporter, device plugin, node status, node agents): " + d.cause());
            return;
        }
        Map<String, String> leaving = leavingNodes(d, b);
        if (nodes.stream().allMatch(leaving::containsKey)) {
            // The fault is real and reported, but its node is drained and deleted by its provisioner already: a cordon, a reset or
            // a repair would race that removal for hardware that is going away, and the drain moves what runs there. What is
            // left for a person is the device itself, which a cloud hands to the next tenant unless someone reports it.
            escalate.add("the device fault on " + String.join(", ", nodes) + " is reported, but the node is being removed on purpose ("
                    + leaving.get(nodes.get(0)) + "): nothing is done on a node that is leaving (no cordon, reset, repair or move: its"
                    + " provisioner drains what runs there and deletes it); a person reports the faulty device (to the cloud provider,"
                    + " or for RMA) so it is not handed out again: " + d.cause());
            return;
        }
        for (String node : nodes) {
            if (cordoned(b, node)) {
                escalate.add(node + " is already cordoned; it still needs a person: " + d.cause());
            } else {
                out.add(new Proposal(ActionKind.CORDON_NODE, node, "fence " + node + ": " + d.cause(), cited, BY));
            }
        }
        String where = String.join(", ", nodes);
        if (awaitsReset(d)) {
            // The device works and applies what it recorded at its next reset: keep new work off the node so it empties,
            // and reset the GPU then; killing or resetting under the work would lose it for nothing the work needs.
            List<Proposal> emptied = emptiedAtNextCheckpoint(d, b, nodes, cited);
            out.addAll(emptied);
            escalate.add("the GPU on " + where + " needs a reset to apply what it recorded; new work is kept off the node and what"
                    + " runs there keeps running" + (emptied.isEmpty() ? " until it ends or a person moves it; then a person resets the GPU"
                            : "; the node is emptied right after the next checkpoint of the gang running there, once a person approves,"
                                    + " and a person resets the GPU") + ": " + d.cause());
            return;
        }
        if (needsService(d)) {
            // It runs, slowed, until a person services the hardware: a reset, a reboot or moving the work changes nothing.
            escalate.add("the hardware of " + where + " needs a person (reseat, cable, link): new work is kept off the node and what runs"
                    + " there keeps running until a person picks the moment to service it: " + d.cause());
            return;
        }
        if (dueForReplacement(d)) {
            // The device still runs what it runs: keep new work off it and have it replaced; moving or
            // resetting the work changes nothing for the device.
            List<Proposal> swap = emptiedAtNextCheckpoint(d, b, nodes, cited);
            out.addAll(swap);
            escalate.add(swap.isEmpty()
                    ? "the device on " + where + " is due for replacement (RMA); what runs there keeps running until a person"
                            + " drains the node for the swap: " + d.cause()
                    : "the device on " + where + " is due for replacement (RMA); the node is emptied for the swap right after the"
                            + " next checkpoint of the gang running there, once a person approves (in the policy's maintenance"
                            + " windows): " + d.cause());
            return;
        }
        // A gang the alert is about cannot run while one of its hosts is fenced: it restarts whole, to be
        // placed again on healthy hosts (a multi-host slice recovers only as one unit).
        if (b.subject().kind() == io.acceltriage.incident.Subject.Kind.WORKLOAD) {
            String name = b.subject().name().substring(b.subject().name().indexOf('/') + 1);
            b.workloads().stream().filter(w -> w.gang() && w.namespace().equals(b.subject().namespace()) && w.name().equals(name))
                    .findFirst().ifPresent(w -> out.add(new Proposal(ActionKind.RESTART_GROUP, w.ref(),
                            "restart the gang whole on healthy nodes after the device fault on " + where, cited, BY)));
        }
        for (PodPlacement p : affectedPods(d, b)) {
            Optional<Workload> w = p.workloadRef() == null ? Optional.empty() : b.workload(p.workloadRef());
            if (w.isPresent() && w.get().serving()) {
                shiftOff(w.get(), where, "", b, cited, out, escalate);
            } else if (stillWorking(p, d, b)) {
                escalate.add(p.ref() + " still works on the faulted device (running and ready, never restarted, no error in its"
                        + " log) and the fault is known only from counters, not from an XID or the device's health: it is not"
                        + " killed; " + where + " is fenced for new work and a person picks the moment to move it (its next"
                        + " checkpoint, or at once if its results may be wrong)");
            } else {
                restartWorkloadOf(p, b, "restart on healthy nodes after the device fault on " + where, cited, out);
            }
        }
        List<Proposal> recovery = recovery(d, b, routes, cited);
        out.addAll(recovery);
        if (recovery.isEmpty()) {
            escalate.add("a person must reset, reboot or replace the device on " + where + ": " + d.cause());
        } else {
            escalate.add("recovery proposed for " + where + " (" + String.join(", ", recovery.stream().map(Proposal::name).toList())
                    + "); a person replaces the hardware if it faults again: " + d.cause());
        }
    }

    /**
     * A degraded device still works, so a training gang on it need not lose what it computed since its last
     * checkpoint: offer to fence the node (nothing is evicted; the gang's replacement member cannot land
     * there) and restart the gang once it has checkpointed again. Only for a gang that reports its
     * checkpoints; a person approves both (policy {@code checkpoints}).
     */
    private static void atNextCheckpoint(Diagnosis d, EvidenceBundle b, List<String> cited, List<Proposal> out) {
        if (b.node() == null || cordoned(b, b.node())) return;
        for (Workload w : b.workloads()) {
            if (!w.gang() || w.podsOnNode().isEmpty() || checkpointOf(b, w).isEmpty()) continue;
            Facts.GangCheckpoint c = checkpointOf(b, w).get();
            List<String> why = new ArrayList<>(cited);
            b.items().stream().filter(e -> e.fact() == c).findFirst().ifPresent(e -> why.add(e.id()));
            out.add(new Proposal(ActionKind.CORDON_NODE, b.node(), "keep " + w.ref() + "'s replacement member off the degraded "
                    + b.node() + " (nothing is evicted): " + d.cause(), why, BY, true));
            out.add(new Proposal(ActionKind.RESTART_GROUP, w.ref(), "restart the gang at its next checkpoint (the last was "
                    + c.secondsSince() + " s before the alert), its member on " + b.node() + " replaced: " + d.cause(), why, BY, true));
        }
    }

    /**
     * A device due for replacement must leave the node empty for the swap, but nothing about it is urgent: it still
     * computes correctly. An on-call expert picks the moment that loses no work: right after the next checkpoint of the
     * training gang running there. So for each node with a member of a gang that reports its checkpoints: restart
     * the gang whole at that checkpoint (never half a gang: the drain alone would evict one member and leave the others
     * stalled at their rendezvous; the node is already cordoned, so only that member is placed elsewhere), and drain the
     * node at the same checkpoint for the rest of what runs there. A person approves both, and the drain keeps to the
     * policy's windows and freezes. Without such a gang there is no moment that saves work, so a person still picks it
     * (nothing proposed). A degraded device is not drained at all: it is not to be replaced yet, only the gang it slows
     * is moved ({@link #atNextCheckpoint}).
     */
    private static List<Proposal> emptiedAtNextCheckpoint(Diagnosis d, EvidenceBundle b, List<String> nodes, List<String> cited) {
        List<Proposal> out = new ArrayList<>();
        for (String node : nodes) {
            Proposal drain = null; // one drain per node, named after its first checkpointing gang
            for (Workload w : b.workloads()) {
                if (!w.gang() || !w.nodes().contains(node) || checkpointOf(b, w).isEmpty()) continue;
                Facts.GangCheckpoint c = checkpointOf(b, w).get();
                List<String> why = new ArrayList<>(cited);
                b.items().stream().filter(e -> e.fact() == c).findFirst().ifPresent(e -> why.add(e.id()));
                out.add(new Proposal(ActionKind.RESTART_GROUP, w.ref(), "restart the gang whole at its next checkpoint (the last was "
                        + c.secondsSince() + " s before the alert), its member on " + node + " placed on a healthy node: "
                        + d.cause(), why, BY, true));
                if (drain == null) {
                    drain = new Proposal(ActionKind.DRAIN_NODE, node, "empty " + node + " for the device's replacement right after "
                            + w.ref() + "'s next checkpoint, so no training is lost: " + d.cause(), why, BY, true);
                }
            }
            if (drain != null) out.add(drain);
        }
        return out;
    }

    private static Optional<Facts.GangCheckpoint> checkpointOf(EvidenceBundle b, Workload w) {
        return b.of(Facts.GangCheckpoint.class).stream().map(e -> (Facts.GangCheckpoint) e.fact())
                .filter(c -> c.namespace().equals(w.namespace()) && c.workload().equals(w.name())).findFirst();
    }

    /**
     * The way back to service the catalogue names for a fresh fatal XID read from the GPU's own
     * telemetry: a reset of that one GPU, or, when only a reboot clears it (79, off the bus), a
     * hand-over to repair and a validated return. An XID seen only in a log line names no GPU index
     * to reset, so it gets none.
     */
    private List<Proposal> recovery(Diagnosis d, EvidenceBundle b, RepairRoute.Routes routes, List<String> cited) {
        List<Proposal> out = new ArrayList<>();
        for (Finding f : d.supporting()) {
            if (!f.symptom()) {
                for (String id : f.evidenceIds()) recoveryFlag(b, routes, id).ifPresent(r -> out.addAll(r.apply(cited)));
            }
            for (String id : f.evidenceIds()) {
                Optional<Facts.MetricReading> m = b.byId(id).map(Evidence::fact).filter(Facts.MetricReading.class::isInstance)
                        .map(Facts.MetricReading.class::cast).filter(r -> "DCGM_FI_DEV_XID_ERRORS".equals(r.metric()));
                if (m.isEmpty() || m.get().device() == null || m.get().node() == null || (m.get().previous() != null && !m.get().changed())) {
                    continue;
                }
                Optional<XidCatalogue.Xid> x = xids.get((int) m.get().value()).filter(XidCatalogue.Xid::fatal);
                if (x.isEmpty() || x.get().repeatingFamily() != null) continue;
                String node = m.get().node();
                if (x.get().action().contains("reset GPU")) {
                    out.addAll(resetOrReplace(routes, b, node, m.get().device(), "XID " + x.get().code() + " (" + x.get().meaning()
                            + ") clears with a GPU reset", cited));
                } else if (x.get().action().equals("reboot node")) {
                    out.addAll(throughRepair(routes.route(node, poolOf(b, node)), node, "XID " + x.get().code() + " (" + x.get().meaning()
                            + ") needs a reboot", cited));
                }
            }
        }
        return out;
    }

    /**
     * The hand-over to repair the pool's protocol allows (a reboot, or a replacement where the repairer cannot
     * reboot or the node is a repeat offender), then validation and the return of the node (or of the
     * replacement that stands for it).
     */
    private static List<Proposal> throughRepair(RepairRoute route, String node, String why, List<String> cited) {
        Proposal handOver = route.replace()
                ? new Proposal(ActionKind.REPLACE_NODE, node, "hand " + node + " to its pool's repairer (" + route.protocol()
                        + ") to replace it, as " + route.why() + ": " + why, cited, BY)
                : new Proposal(ActionKind.REPAIR_NODE, node, "hand " + node + " to its pool's repairer to reboot it: " + why, cited, BY);
        String back = route.replace() ? "its replacement" : node;
        return List.of(handOver,
                new Proposal(ActionKind.VALIDATE_NODE, node, "run DCGM diagnostics on " + back + " once it is back from repair", cited, BY),
                new Proposal(ActionKind.RETURN_NODE, node, "return " + back + " once repaired and its validation passes", cited, BY));
    }

    /**
     * A reset of the one GPU, or, when the policy would refuse it as a repeat offender's (its fatal XIDs or the node's
     * remediations at the limit), the node's hand-over for replacement: the reset alone would be denied and leave the
     * node fenced with no way back planned.
     */
    private static List<Proposal> resetOrReplace(RepairRoute.Routes routes, EvidenceBundle b, String node, String gpu, String why,
            List<String> cited) {
        RepairRoute route = routes.resetRoute(node, gpu, poolOf(b, node));
        if (route.replace()) {
            return throughRepair(route, node, why + ", but GPU " + gpu + " may not be reset again", cited);
        }
        return List.of(new Proposal(ActionKind.RESET_GPU, node + "/" + gpu, "reset GPU " + gpu + " of " + node + ": " + why, cited, BY));
    }

    /** The pool of a node of the bundle: the subject's, else the one its accelerator capacity was read under; null when unknown. */
    private static String poolOf(EvidenceBundle b, String node) {
        if (node.equals(b.node()) && b.pool() != null) return b.pool();
        return b.items().stream().map(Evidence::fact).filter(f -> f instanceof Facts.AcceleratorCapacity c && node.equals(c.node())
                && c.pool() != null).map(f -> ((Facts.AcceleratorCapacity) f).pool()).findFirst().orElse(null);
    }

    /**
     * XID 154's recovery flag as a platform source relays the driver's line (a node event or condition of a node
     * agent): the driver's own statement of what the GPU needs. A node reboot goes to repair; a GPU reset goes to the
     * one GPU of the node whose XID gauge just changed (the kernel line names the GPU by PCI address only, so with
     * none or several a person picks it); a drain of its peers is no mitigation here, so a person does it.
     */
    private Optional<java.util.function.Function<List<String>, List<Proposal>>> recoveryFlag(EvidenceBundle b, RepairRoute.Routes routes,
            String id) {
        Optional<Evidence> e = b.byId(id).filter(Evidence::platform);
        String text = e.map(Evidence::fact).map(f -> f instanceof Facts.ClusterEvent ev && "Node".equals(ev.objectKind()) ? ev.message()
                : f instanceof Facts.NodeCondition c && "True".equals(c.status()) ? c.message() : null).orElse(null);
        String node = e.flatMap(RulesPlanner::nodeOf).orElse(null);
        if (text == null || node == null) return Optional.empty();
        Optional<XidCatalogue.RecoveryAction> action = xids.recoveryIn(text);
        String why = action.map(r -> "the driver requires a " + r.action() + " (XID 154, flag 0x" + Integer.toHexString(r.flag()) + ")")
                .orElse("");
        if (action.filter(r -> "reboot".equals(r.needs())).isPresent()) {
            return Optional.of(cited -> throughRepair(routes.route(node, poolOf(b, node)), node, why, cited));
        }
        if (action.filter(r -> "reset".equals(r.needs())).isPresent()) {
            List<String> gpus = b.items().stream().filter(Evidence::platform).map(Evidence::fact)
                    .filter(f -> f instanceof Facts.MetricReading m && "DCGM_FI_DEV_XID_ERRORS".equals(m.metric()) && node.equals(m.node())
                            && m.device() != null && m.value() != 0 && (m.previous() == null || m.changed()))
                    .map(f -> ((Facts.MetricReading) f).device()).distinct().toList();
            if (gpus.size() == 1) {
                return Optional.of(cited -> resetOrReplace(routes, b, node, gpus.get(0), why, cited));
            }
        }
        return Optional.empty();
    }

    /** Every reason of the diagnosis that says what the device needs says it is due for replacement, and one does. */
    static boolean dueForReplacement(Diagnosis d) {
        return everyStateFinding(d, io.acceltriage.diagnosis.Classifier.REPLACE_DEVICE);
    }

    /** Every reason of the diagnosis that says what the device needs says a person must service its hardware. */
    static boolean needsService(Diagnosis d) {
        return everyStateFinding(d, io.acceltriage.diagnosis.Classifier.SERVICE_HARDWARE);
    }

    /** Every reason of the diagnosis that says what the device needs says it awaits a reset to apply a repair, and one does. */
    static boolean awaitsReset(Diagnosis d) {
        return everyStateFinding(d, io.acceltriage.diagnosis.Classifier.RESET_PENDING);
    }

    private static boolean everyStateFinding(Diagnosis d, String groupPrefix) {
        List<Finding> state = d.supporting().stream().filter(f -> !f.symptom() && !f.degradation()).toList();
        return !state.isEmpty() && state.stream().allMatch(f -> f.group().startsWith(groupPrefix));
    }

    /**
     * A fleet incident's only mitigation: hold each node-agent rollout it follows, so the rest of the
     * fleet keeps the old revision while a person decides (roll back, or resume). Proposed only when the
     * fleet's fault is infrastructure; the rollouts are the DaemonSets' NewRevision evidence.
     */
    public static List<Proposal> pauseRollouts(Diagnosis d, List<Evidence> rollouts) {
        if (d.family() != Family.INFRASTRUCTURE) return List.of();
        List<Proposal> out = new ArrayList<>();
        for (Evidence e : rollouts) {
            if (e.fact() instanceof Facts.ClusterEvent ev && "DaemonSet".equals(ev.objectKind())) {
                out.add(new Proposal(ActionKind.PAUSE_ROLLOUT, ev.namespace() + "/" + ev.objectName(),
                        "hold the rollout the fleet's fault follows (" + e.summary() + "): " + d.cause(), List.of(e.id()), BY));
            }
        }
        return dedupe(out);
    }

    /**
     * The nodes a device fault is on: those its strong platform findings name (a gang's or a serving
     * workload's member node, the alerted node itself), else the subject's node.
     */
    static List<String> faultNodes(Diagnosis d, EvidenceBundle b) {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (Finding f : d.supporting()) {
            if (f.symptom() || f.weight() < 0.5) continue;
            for (String id : f.evidenceIds()) {
                b.byId(id).filter(Evidence::platform).flatMap(RulesPlanner::nodeOf).ifPresent(out::add);
            }
        }
        if (out.isEmpty() && b.node() != null) out.add(b.node());
        return new ArrayList<>(out);
    }

    private static Optional<String> nodeOf(Evidence e) {
        return io.acceltriage.diagnosis.Classifier.nodeOfFact(e.fact());
    }

    /** A serving workload's replica moves off {@code where} to healthy hardware, unless its new replica has no room to land. */
    private static void shiftOff(Workload w, String where, String why, EvidenceBundle b, List<String> cited, List<Proposal> out,
            List<String> escalate) {
        if (noRoomFor(w, b)) {
            escalate.add("no room to move " + w.ref() + " off " + where + ": its own new replica cannot be scheduled"
                    + " (accelerators exhausted), so moving a serving replica would lower the floor; a person decides");
        } else {
            out.add(new Proposal(ActionKind.SHIFT_REPLICAS, w.ref(), "move the replica off " + where + why + " to healthy hardware",
                    cited, BY));
        }
    }

    /**
     * The scheduler already proves there is no room: a replica of the same workload waits for
     * accelerators no node can give it. Shifting scales up first, and that replica would wait too.
     */
    static boolean noRoomFor(Workload w, EvidenceBundle b) {
        return b.items().stream().anyMatch(e -> e.fact() instanceof Facts.PodPending p && w.ref().equals(p.workload())
                && p.message() != null && p.message().contains("Insufficient"));
    }

    /** A workload of the incident that is visibly down or stalled: replicas missing, pods waiting, containers not running. */
    static Optional<String> brokenWorkload(EvidenceBundle b) {
        for (Workload w : b.workloads()) {
            if (w.replicas() != null && w.replicas() > 0 && (w.availableReplicas() == null ? 0 : w.availableReplicas()) < w.replicas()) {
                return Optional.of(w.ref() + " has " + (w.availableReplicas() == null ? 0 : w.availableReplicas()) + " of " + w.replicas()
                        + " replicas available");
            }
        }
        for (Evidence e : b.items()) {
            // Only the incident's own pods and workloads: other pods pending elsewhere are someone else's.
            if (e.fact() instanceof Facts.PodPending p && (b.pod(p.namespace(), p.pod()).isPresent()
                    || p.workload() != null && b.workload(p.workload()).isPresent())) {
                return Optional.of(p.namespace() + "/" + p.pod() + " is not scheduled: " + p.message());
            }
            if (e.fact() instanceof Facts.ContainerState c && !c.role().nodeAgent() && !c.ready()) {
                return Optional.of(c.namespace() + "/" + c.pod() + " is not running ready (" + (c.reason() == null ? c.state() : c.reason()) + ")");
            }
        }
        return Optional.empty();
    }

    /**
     * Nodes their provisioner or the cluster autoscaler is removing on purpose (a {@code leaving} taint, a deletionTimestamp), each
     * with the reason in words: the platform's word only (node spec and metadata).
     */
    static Map<String, String> leavingNodes(Diagnosis d, EvidenceBundle b) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Finding f : d.findings()) {
            if (!f.group().startsWith(io.acceltriage.diagnosis.Classifier.LEAVING)) continue;
            f.evidenceIds().stream().map(b::byId).flatMap(Optional::stream).filter(Evidence::platform).map(RulesPlanner::nodeOf)
                    .flatMap(Optional::stream).forEach(n -> out.putIfAbsent(n, f.cause()));
        }
        return out;
    }

    /**
     * Nothing is done on a node that is leaving: its provisioner drains it and deletes it, so a cordon, an agent restart, a reset
     * or a repair there only races the removal (and an undo could uncordon what the provisioner fenced). Whatever a family's
     * plan proposed on such a node is dropped, and a person is told what was not done.
     */
    private static void spareLeavingNodes(Map<String, String> leaving, List<Proposal> proposals, List<String> escalate) {
        if (leaving.isEmpty()) return;
        List<Proposal> dropped = proposals.stream().filter(p -> p.kind().targetsNode() && leaving.containsKey(p.kind().node(p.target())))
                .toList();
        if (dropped.isEmpty()) return;
        proposals.removeAll(dropped);
        String node = dropped.get(0).kind().node(dropped.get(0).target());
        escalate.add(node + " is being removed on purpose (" + leaving.get(node) + "): nothing is done on a node that is leaving ("
                + String.join(", ", dropped.stream().map(Proposal::name).distinct().toList()) + " not proposed)");
    }

    /** Cordoned already: fencing it again would only spend the budget. */
    static boolean cordoned(EvidenceBundle b, String node) {
        if (node.equals(b.node()) && b.nodeCordoned()) return true;
        return b.items().stream().anyMatch(e -> e.fact() instanceof Facts.NodeTaint t && node.equals(t.node())
                && "node.kubernetes.io/unschedulable".equals(t.key()));
    }

    private void planInfrastructure(Diagnosis d, EvidenceBundle b, List<Proposal> out, List<String> escalate) {
        List<String> cited = d.evidenceIds();
        boolean notReady = has(b, d, e -> e.fact() instanceof Facts.NodeCondition c && "Ready".equals(c.type()));
        boolean cannotServe = notReady || signaturesIn(b).stream().anyMatch(NODE_CANNOT_SERVE::contains)
                || d.supporting().stream().anyMatch(f -> f.weight() >= 0.5 && f.group().startsWith(io.acceltriage.diagnosis.Classifier.CANNOT_SERVE));
        // Restarting the device plugin helps the device plugin (or a node that advertises nothing), not the stack's other agents.
        boolean agentDown = has(b, d, e -> e.fact() instanceof Facts.ContainerState c && c.role().nodeAgent()
                && c.role() != io.acceltriage.evidence.PodRole.OPERAND || e.fact() instanceof Facts.AcceleratorCapacity);
        // The failing agent's DaemonSet took a new revision shortly before: hold the rollout so the pool's other nodes keep the
        // old one; a restart on this node would only start the new revision again.
        List<Evidence> rollouts = b.items().stream().filter(e -> e.platform() && e.fact() instanceof Facts.ClusterEvent ev
                && "DaemonSet".equals(ev.objectKind()) && "NewRevision".equals(ev.reason())).toList();
        List<Proposal> holds = pauseRollouts(d, rollouts);
        // A node agent whose own log says "config error" or "driver mismatch" will crash again after a restart.
        boolean restartCannotHelp = d.supporting().stream().anyMatch(f -> !f.restartHelps() && f.weight() >= 0.5
                && f.evidenceIds().stream().anyMatch(id -> b.byId(id).map(e -> e.fact() instanceof Facts.LogMatch).orElse(false)));
        if (!platformBacked(d, b)) {
            escalate.add("the infrastructure fault" + (b.node() == null ? "" : " on " + b.node()) + " rests only on tenant sources;"
                    + " fencing shared hardware needs a platform source: " + d.cause());
            return;
        }
        // The node lifecycle controller taints a node whose kubelet stopped reporting (unreachable, not-ready):
        // Kubernetes has fenced it already, and a cordon would only spend the budget.
        Optional<String> fencedByKubernetes = b.node() == null ? Optional.empty() : b.items().stream()
                .map(Evidence::fact).filter(f -> f instanceof Facts.NodeTaint t && b.node().equals(t.node())
                        && NODE_CONTROLLER_TAINTS.contains(t.key()) && ("NoSchedule".equals(t.effect()) || "NoExecute".equals(t.effect())))
                .map(f -> ((Facts.NodeTaint) f).key()).findFirst();
        // A failing driver container leaves the device plugin nothing to serve: restarting the plugin cannot fix the driver.
        Optional<String> driverDown = b.node() == null ? Optional.empty() : b.items().stream().map(Evidence::fact)
                .filter(f -> f instanceof Facts.ContainerState c && c.role() == io.acceltriage.evidence.PodRole.DRIVER
                        && b.node().equals(c.node()) && (!c.ready() || c.restarts() > 0))
                .map(f -> ((Facts.ContainerState) f).namespace() + "/" + ((Facts.ContainerState) f).pod()).findFirst();
        if (b.node() != null && cannotServe && !holds.isEmpty()) {
            // The node cannot serve because of the rollout it took: the pool's other nodes take it too, so holding the rollout
            // is the mitigation and a person rolls it back (DESIGN: escalate fleet-wide patterns instead of cordoning nodes).
            escalate.add(b.node() + " cannot run accelerator work since the rollout; holding the rollout instead of fencing nodes one"
                    + " by one: " + d.cause());
        } else if (b.node() != null && cannotServe && fencedByKubernetes.isPresent()) {
            escalate.add(b.node() + " is already tainted " + fencedByKubernetes.get() + " by Kubernetes; a person must look at the host: "
                    + d.cause());
        } else if (b.node() != null && cannotServe) {
            out.add(new Proposal(ActionKind.CORDON_NODE, b.node(), b.node() + " cannot run accelerator work: " + d.cause(), cited, BY));
        }
        if (b.node() != null && cannotServe && holds.isEmpty()) {
            // A serving replica on a node that cannot serve serves nothing, yet counts as the workload's replica: it moves to
            // healthy hardware as from a faulty device (never below the floor, and only where its new replica can land).
            for (Workload w : b.workloads()) {
                if (w.serving() && !w.podsOnNode().isEmpty()) shiftOff(w, b.node(), ", which cannot serve,", b, cited, out, escalate);
            }
        }
        out.addAll(holds);
        Optional<PodPlacement> agent = restartableAgent(d, b);
        if (!holds.isEmpty()) {
            escalate.add("the node agent failing on " + b.node() + " follows a rollout (" + rollouts.get(0).summary() + "): a person"
                    + " rolls it back or fixes it before it resumes: " + d.cause());
        } else if (driverDown.isPresent()) {
            escalate.add("the driver container " + driverDown.get() + " on " + b.node() + " is failing; restarting the device plugin cannot"
                    + " fix the driver (a person checks the driver for the node's kernel): " + d.cause());
        } else if (b.node() != null && agentDown && !notReady && !restartCannotHelp) {
            out.add(new Proposal(ActionKind.RESTART_NODE_AGENT, b.node(), "restart the device plugin on " + b.node(), cited, BY));
        } else if (agent.isPresent() && !notReady && !restartCannotHelp) {
            out.add(new Proposal(ActionKind.RESTART_NODE_AGENT, agent.get().node(), "restart the node agent " + agent.get().ref() + " on "
                    + agent.get().node()
                    + ", whose own log shows a failure its restart clears: " + d.cause(), cited, BY));
        } else {
            escalate.add("the node's accelerator stack needs a person" + (b.node() == null ? "" : " on " + b.node()) + ": " + d.cause());
        }
    }

    /**
     * A node agent whose own log (the platform's) shows a failure a restart clears, among the diagnosis's strong reasons:
     * it runs wherever it runs, which need not be the alert's node (the node a pending workload cannot land on).
     */
    private static Optional<PodPlacement> restartableAgent(Diagnosis d, EvidenceBundle b) {
        return d.supporting().stream().filter(f -> f.restartHelps() && f.weight() >= 0.5).flatMap(f -> f.evidenceIds().stream())
                .map(b::byId).flatMap(Optional::stream).filter(Evidence::platform)
                .filter(e -> e.fact() instanceof Facts.LogMatch l && l.role().nodeAgent())
                .map(e -> (Facts.LogMatch) e.fact()).flatMap(l -> b.pod(l.namespace(), l.pod()).stream())
                .filter(p -> p.node() != null).findFirst();
    }

    private void planApplication(Diagnosis d, EvidenceBundle b, List<Proposal> out, List<String> escalate) {
        if (d.restartHelps()) {
            for (PodPlacement p : affectedPods(d, b)) {
                restartWorkloadOf(p, b, "a restart is expected to clear: " + d.cause(), d.evidenceIds(), out);
            }
            if (out.isEmpty()) {
                escalate.add("the workload needs its owners and has no controller to restart it: " + d.cause());
            }
        } else {
            escalate.add("the owning team must fix the workload: " + d.cause());
        }
    }

    private void restartWorkloadOf(PodPlacement p, EvidenceBundle b, String reason, List<String> cited, List<Proposal> out) {
        Optional<Workload> w = p.workloadRef() == null ? Optional.empty() : b.workload(p.workloadRef());
        if (w.isPresent() && w.get().gang()) {
            // Never half a gang: its members restart together or not at all.
            out.add(new Proposal(ActionKind.RESTART_GROUP, w.get().ref(), reason, cited, BY));
        } else if (p.controlled()) {
            out.add(new Proposal(ActionKind.RESTART_POD, p.ref(), reason, cited, BY));
        }
    }

    /**
     * Workload pods the fault touches: those the evidence names (holding a faulty device, crashing,
     * logging the fault, or the alert's own pod). A healthy pod on healthy devices of a fenced node
     * keeps running: moving it is a drain, which a person approves.
     */
    private List<PodPlacement> affectedPods(Diagnosis d, EvidenceBundle b) {
        Map<String, PodPlacement> out = new LinkedHashMap<>();
        Set<String> named = new LinkedHashSet<>();
        for (Finding f : d.supporting()) {
            for (String id : f.evidenceIds()) {
                b.byId(id).flatMap(RulesPlanner::podOf).ifPresent(named::add);
            }
        }
        // A gang member whose own failure the fault explains (its crash read as "a consequence of" the fault) leaves the
        // other members waiting at their rendezvous, even when no platform series names its pod (it died, and the XID
        // gauge carries no pod label): the gang is hit. A lone pod that already failed is its controller's to retry.
        for (Finding f : d.findings()) {
            if (!f.group().startsWith(io.acceltriage.diagnosis.Classifier.CONSEQUENCE)) continue;
            for (String id : f.evidenceIds()) {
                b.byId(id).flatMap(RulesPlanner::podOf).filter(ref -> gangMember(ref, b)).ifPresent(named::add);
            }
        }
        for (Evidence e : b.items()) {
            if (e.fact() instanceof Facts.DeviceHealth h && "Unhealthy".equals(h.health())) named.add(h.namespace() + "/" + h.pod());
            if (e.fact() instanceof Facts.ContainerState c && !c.role().nodeAgent() && "CrashLoopBackOff".equals(c.reason())
                    && d.family() != Family.APPLICATION) {
                named.add(c.namespace() + "/" + c.pod());
            }
        }
        if (b.subject().kind() == io.acceltriage.incident.Subject.Kind.POD) {
            named.add(b.subject().namespace() + "/" + b.subject().name());
        }
        // A fault of the whole node (its NVSwitch fabric) reaches every accelerator there: each workload holding one is hit,
        // whether or not its own pod has shown it yet.
        if (d.family() == Family.DEVICE && d.supporting().stream().anyMatch(f -> !f.symptom() && f.weight() >= 0.5
                && f.group().contains(io.acceltriage.diagnosis.Classifier.NODE_WIDE))) {
            Set<String> faulty = new LinkedHashSet<>(faultNodes(d, b));
            b.pods().stream().filter(p -> !p.role().nodeAgent() && p.accelerators() > 0 && faulty.contains(p.node())).forEach(p -> named.add(p.ref()));
        }
        for (PodPlacement p : b.pods()) {
            if (!p.role().nodeAgent() && named.contains(p.ref())) out.put(p.ref(), p);
        }
        return new ArrayList<>(out.values());
    }

    /**
     * A workload pod that shows no sign of the device fault (no container of it waiting, terminated, restarted or not
     * ready; no line of its log matched; no device of it reported unhealthy) while the fault is known only from the
     * exporter's counters (ECC, NVLink, row-remap or thermal series; no XID, which is the driver killing contexts, and no
     * lost GPU): the device still answers it, so killing it loses its work for nothing the restart would fix.
     */
    static boolean stillWorking(PodPlacement p, Diagnosis d, EvidenceBundle b) {
        boolean countersOnly = d.supporting().stream().filter(f -> !f.symptom()).flatMap(f -> f.evidenceIds().stream())
                .map(b::byId).flatMap(Optional::stream)
                .allMatch(e -> e.fact() instanceof Facts.MetricReading m && m.xid() == null && !m.metric().contains("XID"));
        if (!countersOnly) return false;
        for (Evidence e : b.items()) {
            if (e.fact() instanceof Facts.ContainerState c && c.namespace().equals(p.namespace()) && c.pod().equals(p.name())) return false;
            if (e.fact() instanceof Facts.LogMatch l && l.namespace().equals(p.namespace()) && l.pod().equals(p.name())) return false;
            if (e.fact() instanceof Facts.DeviceHealth h && h.namespace().equals(p.namespace()) && h.pod().equals(p.name())
                    && !"Healthy".equals(h.health())) return false;
        }
        return true;
    }

    private static boolean gangMember(String podRef, EvidenceBundle b) {
        return b.pods().stream().filter(p -> p.ref().equals(podRef) && p.workloadRef() != null).findFirst()
                .flatMap(p -> b.workload(p.workloadRef())).map(Workload::gang).orElse(false);
    }

    private static Optional<String> podOf(Evidence e) {
        if (e.fact() instanceof Facts.LogMatch l && !l.role().nodeAgent()) return Optional.of(l.namespace() + "/" + l.pod());
        if (e.fact() instanceof Facts.DeviceHealth h) return Optional.of(h.namespace() + "/" + h.pod());
        if (e.fact() instanceof Facts.ContainerState c && !c.role().nodeAgent()) return Optional.of(c.namespace() + "/" + c.pod());
        if (e.fact() instanceof Facts.MetricReading m && m.pod() != null) return Optional.of(m.namespace() + "/" + m.pod());
        return Optional.empty();
    }

    /**
     * Node fencing (cordon, drain, node-agent restart) needs a platform source among the diagnosis's
     * reasons: a tenant's own log, crashes or events may raise suspicion, never fence shared hardware.
     */
    static boolean platformBacked(Diagnosis d, EvidenceBundle b) {
        return d.supporting().stream().filter(f -> f.weight() >= 0.3).flatMap(f -> f.evidenceIds().stream())
                .map(b::byId).flatMap(Optional::stream).anyMatch(Evidence::platform);
    }

    private static boolean has(EvidenceBundle b, Diagnosis d, java.util.function.Predicate<Evidence> test) {
        return d.supporting().stream().flatMap(f -> f.evidenceIds().stream())
                .map(b::byId).flatMap(Optional::stream).anyMatch(test);
    }

    /** Log signatures anywhere in the bundle: a node agent's own log counts even when it is not the cited cause. */
    private static Set<String> signaturesIn(EvidenceBundle b) {
        Set<String> out = new LinkedHashSet<>();
        for (Evidence e : b.items()) {
            if (e.fact() instanceof Facts.LogMatch l) out.add(l.signature());
        }
        return out;
    }

    private static List<Proposal> dedupe(List<Proposal> proposals) {
        Map<String, Proposal> byName = new LinkedHashMap<>();
        for (Proposal p : proposals) byName.putIfAbsent(p.name(), p);
        return new ArrayList<>(byName.values());
    }
}
