package io.acceltriage.agent.llm;

import dev.langchain4j.service.UserMessage;

/** AI service: answers a chat question with the history tools (prompt: prompts/chat.txt). */
interface ChatService {
    ChatAnswer answer(@UserMessage String question);
}
