package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;
import java.util.List;

/** The summary a person reads, with the evidence ids it cites. */
public record HumanSummary(
        @Description("at most five plain sentences, citing evidence as [E3]") String text,
        @Description("every evidence id the text cites") List<String> evidenceIds) {}
