package io.acceltriage.action;

/**
 * Where an action stands. PLANNED is written before anything touches the cluster. UNVERIFIED: it ran,
 * but the check afterwards did not see the intended effect (a person must look). UNDONE: a person
 * reverted it.
 */
public enum ActionStatus { PLANNED, AWAITING_APPROVAL, SUCCEEDED, UNVERIFIED, DRY_RUN, FAILED, SKIPPED, REJECTED, EXPIRED, UNDONE }
