package io.acceltriage.action;

/**
 * Where an action stands. PLANNED is written before anything touches the cluster. VERIFYING: it ran and
 * the check of its effect is under way (a leader that takes over after a crash checks again; it never
 * runs the action twice). SUCCEEDED: it ran and its effect was seen. UNVERIFIED: it ran, but the check
 * did not see the intended effect (a person must look). UNDONE: a person reverted it.
 */
public enum ActionStatus { PLANNED, AWAITING_APPROVAL, VERIFYING, SUCCEEDED, UNVERIFIED, DRY_RUN, FAILED, SKIPPED, REJECTED, EXPIRED, UNDONE }
