package io.acceltriage.evidence;

import static io.acceltriage.cluster.Owners.controllerOf;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Which pods are the platform's node agents. {@code node-agents.yaml} recognises an agent by its pod's or DaemonSet's
 * name, and a name is whatever its author chose: a tenant allowed to create DaemonSets (Kubernetes' default {@code edit}
 * role is) could name one like the device plugin or NVIDIA's health validation, and its log would then speak for the
 * platform. So a DaemonSet pod is an agent by name in the namespaces {@code platformNamespaces} lists, and elsewhere only
 * where a tenant cannot be speaking: not when it asks for accelerators itself (agents see the devices without requesting
 * them), and not in a namespace that runs accelerator workloads. Agents in a namespace of their own (a DRA driver's, IBM
 * Autopilot's) stay agents without being listed.
 *
 * <p>One instance per triage or action: it remembers what it learnt of each namespace.
 */
public final class AgentPods {

    private final NodeAgents knowledge;
    private final Function<String, List<Pod>> podsIn;
    private final Map<String, Boolean> tenantNamespaces = new ConcurrentHashMap<>();

    /** {@code podsIn}: the pods of a namespace (read when a pod named like an agent runs in an unlisted one). */
    public AgentPods(NodeAgents knowledge, Function<String, List<Pod>> podsIn) {
        this.knowledge = knowledge;
        this.podsIn = podsIn;
    }

    /** The pod's role: a node agent's by its name, unless a tenant may have chosen that name. */
    public PodRole roleOf(Pod p) {
        PodRole named = byName(p);
        return named.nodeAgent() && tenantMayHaveNamed(p) ? PodRole.WORKLOAD : named;
    }

    /** True when the pod is named like a node agent and read as a tenant's (the collector says so in its evidence). */
    boolean impersonates(Pod p) {
        return byName(p).nodeAgent() && !roleOf(p).nodeAgent();
    }

    private PodRole byName(Pod p) {
        OwnerReference c = controllerOf(p);
        return knowledge.roleOf(p.getMetadata().getName(), c == null ? null : c.getKind(), c == null ? null : c.getName());
    }

    private boolean tenantMayHaveNamed(Pod p) {
        String ns = p.getMetadata().getNamespace();
        if (ns == null || knowledge.platformNamespaces().contains(ns)) return false;
        return acceleratorsRequested(p) > 0 || runsTenantWork(ns);
    }

    /** A namespace the platform's list does not name, where pods ask for accelerators: a tenant's. */
    public boolean runsTenantWork(String namespace) {
        if (knowledge.platformNamespaces().contains(namespace)) return false;
        return tenantNamespaces.computeIfAbsent(namespace, n -> podsIn.apply(n).stream().anyMatch(q -> acceleratorsRequested(q) > 0));
    }

    /** How many accelerators (of any resource {@code node-agents.yaml} lists) the pod's containers ask for. */
    public int acceleratorsRequested(Pod p) {
        return acceleratorsRequested(p, knowledge.acceleratorResources());
    }

    static int acceleratorsRequested(Pod p, List<String> resources) {
        int n = 0;
        if (p.getSpec() == null || p.getSpec().getContainers() == null) return 0;
        for (var c : p.getSpec().getContainers()) {
            if (c.getResources() == null) continue;
            Map<String, Quantity> limits = new HashMap<>(c.getResources().getRequests() == null ? Map.of() : c.getResources().getRequests());
            if (c.getResources().getLimits() != null) limits.putAll(c.getResources().getLimits());
            for (String r : resources) {
                n += amount(limits.get(r));
            }
        }
        return n;
    }

    static int amount(Quantity q) {
        if (q == null) return 0;
        try {
            return q.getNumericalAmount().intValue();
        } catch (ArithmeticException | IllegalArgumentException e) {
            return parseInt(q.getAmount());
        }
    }

    static int parseInt(String s) {
        try {
            return Integer.parseInt(s == null ? "0" : s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
