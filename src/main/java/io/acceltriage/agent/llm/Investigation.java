package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;
import java.util.List;

/** The investigator's structured conclusion. */
public record Investigation(
        FamilyAnswer family,
        @Description("one sentence") String cause,
        @Description("evidence ids it rests on") List<String> evidenceIds,
        @Description("candidate actions you want; policy judges each") List<ProposedMitigation> proposals) {}
