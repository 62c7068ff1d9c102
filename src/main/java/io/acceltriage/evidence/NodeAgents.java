package io.acceltriage.evidence;

import io.acceltriage.config.DataFiles;
import java.util.List;
import java.util.Map;

/** What {@code knowledge/node-agents.yaml} says about accelerator resources, pools and node agents. */
public record NodeAgents(List<String> acceleratorResources, List<String> expectedCountLabels,
        List<String> acceleratorNodeLabels, List<String> poolLabels, List<Agent> agents, List<String> platformNamespaces,
        List<String> watchedNodeLabels, List<String> sliceLabels, List<String> slicePoolLabels, List<String> poolVersionLabels,
        List<LabelWriter> labelWriters) {

    public NodeAgents {
        platformNamespaces = platformNamespaces == null ? List.of() : List.copyOf(platformNamespaces);
        watchedNodeLabels = watchedNodeLabels == null ? List.of() : List.copyOf(watchedNodeLabels);
        sliceLabels = sliceLabels == null ? List.of() : List.copyOf(sliceLabels);
        slicePoolLabels = slicePoolLabels == null ? List.of() : List.copyOf(slicePoolLabels);
        poolVersionLabels = poolVersionLabels == null ? List.of() : List.copyOf(poolVersionLabels);
        labelWriters = labelWriters == null ? List.of() : List.copyOf(labelWriters);
    }

    public record Agent(PodRole role, List<String> patterns) {}

    /** A node agent ({@code agent}: a fragment of its pods' or DaemonSet's name) and the node labels it writes. */
    public record LabelWriter(String agent, List<String> labels) {}

    /** The node agent that writes a node label, when one is declared. */
    public java.util.Optional<String> writerOf(String label) {
        return labelWriters.stream().filter(w -> w.labels().contains(label)).map(LabelWriter::agent).findFirst();
    }

    public static NodeAgents load() {
        return DataFiles.resource("knowledge/node-agents.yaml", NodeAgents.class);
    }

    /** The role of a DaemonSet-owned pod, by its name or its DaemonSet's name. */
    public PodRole roleOf(String podName, String ownerKind, String ownerName) {
        if (!"DaemonSet".equals(ownerKind)) {
            return PodRole.WORKLOAD;
        }
        for (Agent agent : agents) {
            for (String p : agent.patterns()) {
                if (podName.contains(p) || (ownerName != null && ownerName.contains(p))) {
                    return agent.role();
                }
            }
        }
        return PodRole.WORKLOAD;
    }

    /** The label that names a multi-host slice's pool on a node, or null. */
    public String slicePoolLabelOf(Map<String, String> labels) {
        for (String l : slicePoolLabels.isEmpty() ? poolLabels : slicePoolLabels) {
            if (labels.containsKey(l)) return l;
        }
        return null;
    }

    public String poolOf(Map<String, String> labels) {
        for (String l : poolLabels) {
            if (labels.containsKey(l)) {
                return labels.get(l);
            }
        }
        return null;
    }
}
