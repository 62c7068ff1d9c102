package io.acceltriage.policy;

import com.fasterxml.jackson.annotation.JsonValue;

/** What policy says about a proposal: run it, wait for a person, or refuse (and escalate). */
public enum Decision {
    ALLOW, APPROVE, DENY;

    @JsonValue
    public String wireName() {
        return name().toLowerCase();
    }
}
