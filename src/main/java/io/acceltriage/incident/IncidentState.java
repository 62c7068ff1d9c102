package io.acceltriage.incident;

/** Where an incident stands. Only RESOLVED ends it; the others stay open to new alerts about the subject. */
public enum IncidentState {
    /** Alerts received, evidence being gathered. */
    TRIAGING,
    /** Mitigations ran and verified; nothing waits on a human. */
    MITIGATED,
    /** A mitigation waits for a person's approval. */
    AWAITING_APPROVAL,
    /** Humans were told: the fault needs them, or policy or doubt kept the agent from acting. */
    ESCALATED,
    /** The evidence shows no fault. */
    NO_FAULT,
    /** Every alert of the incident resolved. */
    RESOLVED;

    public boolean open() {
        return this != RESOLVED;
    }
}
