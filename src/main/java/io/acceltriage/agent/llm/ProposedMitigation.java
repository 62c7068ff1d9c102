package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;

/** A mitigation the model wants: kind and target exactly as one of the bundle's candidate actions. */
public record ProposedMitigation(
        @Description("restart-pod, restart-group, cordon-node, drain-node, shift-replicas or restart-node-agent") String kind,
        @Description("a node name, or namespace/name of a pod or workload") String target,
        @Description("why, citing evidence ids") String reason) {}
