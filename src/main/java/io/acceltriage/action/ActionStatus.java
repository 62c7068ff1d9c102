package io.acceltriage.action;

/** Where an action stands. PLANNED is written before anything touches the cluster. */
public enum ActionStatus { PLANNED, AWAITING_APPROVAL, SUCCEEDED, DRY_RUN, FAILED, SKIPPED, REJECTED, EXPIRED }
