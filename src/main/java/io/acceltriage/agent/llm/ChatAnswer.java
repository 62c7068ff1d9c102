package io.acceltriage.agent.llm;

import dev.langchain4j.model.output.structured.Description;
import java.util.List;

/** An answer to a chat question, with the incident and evidence ids it relies on. */
public record ChatAnswer(
        @Description("the answer, short and concrete") String text,
        @Description("incident ids and evidence ids the answer relies on") List<String> evidenceIds) {}
