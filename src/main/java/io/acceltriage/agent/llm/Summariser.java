package io.acceltriage.agent.llm;

import dev.langchain4j.service.UserMessage;

/** AI service: writes the summary a person reads (prompt: prompts/summarise.txt). */
interface Summariser {
    HumanSummary summarise(@UserMessage String assessment);
}
