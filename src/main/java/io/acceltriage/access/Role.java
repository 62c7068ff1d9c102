package io.acceltriage.access;

import java.util.Locale;

/** What a person may do. Each role includes the ones before it: an admin may do what an approver may. */
public enum Role {
    /** Reads incidents, the audit log, the fleet. */
    VIEWER,
    /** Also approves, rejects and undoes actions, resets the circuit breaker, drives the sandbox. */
    APPROVER,
    /** Also operates the service itself. */
    ADMIN;

    public boolean includes(Role other) {
        return ordinal() >= other.ordinal();
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a role as operators write it; null when it is not one. */
    static Role parse(String text) {
        for (Role r : values()) {
            if (r.wireName().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return r;
            }
        }
        return null;
    }
}
