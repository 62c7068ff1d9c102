package io.acceltriage.agent.llm;

import io.acceltriage.diagnosis.Family;

/** The failure family as the model answers it (an enum the structured output constrains). */
public enum FamilyAnswer {
    INFRASTRUCTURE, DEVICE, APPLICATION, NONE;

    Family family() {
        return Family.valueOf(name());
    }
}
