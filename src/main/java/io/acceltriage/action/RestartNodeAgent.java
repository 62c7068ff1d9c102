package io.acceltriage.action;

import io.acceltriage.evidence.AgentPods;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.policy.ActionKind;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;

/**
 * Restarts the device plugin on a node: deletes its DaemonSet pod so the DaemonSet starts a fresh
 * one, which re-registers the node's accelerators with the kubelet. The policy's cooldown keeps it
 * to once per node per cooldown; the planned pod uid keeps a resumed action from deleting the new pod.
 * When an agent that labels the node from its devices ({@code labelWriters} in node-agents.yaml: GPU
 * feature discovery) runs there while the node carries none of its labels, that agent is the one
 * serving nothing, and it is restarted instead.
 */
final class RestartNodeAgent implements Mitigation {

    /** Name fragments of device-plugin pods: NVIDIA's operator and Helm chart, AMD, and GKE's TPU plugin. */
    static final List<String> AGENTS = List.of("nvidia-device-plugin", "amdgpu-device-plugin", "tpu-device-plugin", "device-plugin");

    private final KubernetesClient client;
    private final Timing timing;
    private final NodeAgents knowledge;

    RestartNodeAgent(KubernetesClient client, Timing timing) {
        this(client, timing, NodeAgents.load());
    }

    RestartNodeAgent(KubernetesClient client, Timing timing, NodeAgents knowledge) {
        this.client = client;
        this.timing = timing;
        this.knowledge = knowledge;
    }

    @Override
    public ActionKind kind() {
        return ActionKind.RESTART_NODE_AGENT;
    }

    @Override
    public String capture(String node) {
        return agentOn(node).map(p -> p.getMetadata().getUid()).orElse(null);
    }

    @Override
    public List<Precondition> preconditions() {
        return List.of(new Preconditions.NodeExists(client), new AgentRunsThere());
    }

    @Override
    public Outcome apply(Mitigation.Target target, boolean dryRun) {
        Optional<Pod> agent = agentOn(target.name());
        if (agent.isEmpty()) {
            return Outcome.failed("no device-plugin pod runs on " + target.name() + ": check the DaemonSet's node selector", false);
        }
        Pod pod = agent.get();
        if (target.subjectUid() != null && !target.subjectUid().equals(pod.getMetadata().getUid())) {
            return Outcome.done("the node agent on " + target.name() + " was already restarted (" + Pods.ref(pod) + " is new)");
        }
        var resource = client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName());
        (dryRun ? resource.dryRun() : resource).delete();
        return Outcome.done((dryRun ? "dry run: would delete " : "deleted ") + Pods.ref(pod) + " for its DaemonSet to restart it");
    }

    @Override
    public Outcome verify(Mitigation.Target target) {
        String old = target.subjectUid();
        boolean back = timing.until(timing.verifyTimeout(), () -> agentOn(target.name())
                .filter(p -> old == null || !old.equals(p.getMetadata().getUid())).filter(Pods::ready).isPresent());
        return back ? Outcome.done("a new node-agent pod is Ready on " + target.name())
                : Outcome.failed("no Ready node-agent pod came back on " + target.name() + " within "
                        + timing.verifyTimeout().toSeconds() + " s: the node's accelerator stack needs a person", false);
    }

    private Optional<Pod> agentOn(String node) {
        // A tenant's DaemonSet named like an agent is not one (AgentPods): its pod is never the one deleted.
        AgentPods platform = new AgentPods(knowledge, ns -> client.pods().inNamespace(ns).list().getItems());
        List<Pod> agents = Pods.onNode(client, node).stream().filter(Pods::ownedByDaemonSet)
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).filter(p -> platform.roleOf(p).nodeAgent()).toList();
        return unlabelledBy(node, agents).or(() -> agents.stream()
                .filter(p -> AGENTS.stream().anyMatch(a -> p.getMetadata().getName().contains(a))).findFirst());
    }

    /** The pod of a label-writing agent on the node while the node carries none of the labels it writes. */
    private Optional<Pod> unlabelledBy(String node, List<Pod> agents) {
        if (knowledge.labelWriters().isEmpty()) return Optional.empty();
        var n = client.nodes().withName(node).get();
        java.util.Map<String, String> labels = n == null || n.getMetadata().getLabels() == null ? java.util.Map.of() : n.getMetadata().getLabels();
        for (NodeAgents.LabelWriter w : knowledge.labelWriters()) {
            if (w.labels().stream().anyMatch(labels::containsKey)) continue;
            Optional<Pod> writer = agents.stream().filter(p -> p.getMetadata().getName().contains(w.agent())).findFirst();
            if (writer.isPresent()) return writer;
        }
        return Optional.empty();
    }

    /** A device-plugin pod runs on the node: otherwise there is nothing to restart. */
    private final class AgentRunsThere implements Precondition {
        public String name() {
            return "device-plugin-on-node";
        }

        public Optional<String> unmet(Mitigation.Target t) {
            return agentOn(t.name()).isPresent() || t.subjectUid() != null ? Optional.empty()
                    : Optional.of("no device-plugin pod runs on " + t.name());
        }
    }
}
