package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;
import java.util.List;

/** The investigator's structured conclusion. */
public record Investigation(
        @Description("the failure family the evidence supports") FamilyAnswer family,
        @Description("the main cause in one sentence") String cause,
        @Description("ids of the evidence items the conclusion rests on, e.g. E1, E4") List<String> evidenceIds,
        @Description("mitigations you propose; each is judged by policy, none runs by itself") List<ProposedMitigation> proposals) {}
