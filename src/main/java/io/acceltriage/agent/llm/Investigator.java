package io.acceltriage.agent.llm;

import dev.langchain4j.service.UserMessage;

/** AI service: investigates one incident from its evidence bundle (prompt: prompts/investigate.txt). */
interface Investigator {
    Investigation investigate(@UserMessage String bundle);
}
