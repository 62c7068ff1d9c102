package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;

/** A mitigation the model wants: kind and target exactly as one of the bundle's candidate actions. */
public record ProposedMitigation(
        @Description("as in the candidate action") String kind,
        @Description("as in the candidate action") String target,
        @Description("why, citing ids") String reason) {}
