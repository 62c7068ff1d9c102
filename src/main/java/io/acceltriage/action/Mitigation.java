package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;

/** One mitigation: carries out an allowed proposal against the cluster. One class per kind. */
interface Mitigation {

    ActionKind kind();

    /**
     * Applies the action. With {@code dryRun} the API server validates the change (server-side dry
     * run) without persisting it, so a dry run still proves the action would be accepted.
     */
    Outcome apply(String target, boolean dryRun);
}
