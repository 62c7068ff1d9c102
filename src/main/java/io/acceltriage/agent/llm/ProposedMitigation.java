package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;

/** A mitigation the model wants: kind and target exactly as one of the bundle's candidate actions. */
public record ProposedMitigation(
        @Description("restart-pod, restart-group, cordon-node, drain-node, shift-replicas, restart-node-agent, reset-gpu,"
                + " repair-node or return-node") String kind,
        @Description("a node name, node/gpu-index for reset-gpu, or namespace/name of a pod or workload") String target,
        @Description("why, citing evidence ids") String reason) {}
