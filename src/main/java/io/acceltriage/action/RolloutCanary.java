package io.acceltriage.action;

import java.util.List;

/**
 * What the canary decided about a node-agent rollout, told to whoever listens (notify escalates a held one):
 * the DaemonSet ({@code namespace/name}), the revision and its image, the canary nodes, and, when it is held,
 * why in the diagnostic's own words.
 */
public record RolloutCanary(String daemonSet, String revision, String image, boolean released, List<String> nodes,
        List<String> failures) {}
