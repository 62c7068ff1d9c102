package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;
import java.util.List;

/** The summary a person reads, with the evidence ids it cites. */
public record HumanSummary(
        @Description("citing evidence as [E3]") String text,
        @Description("every id cited") List<String> evidenceIds) {}
