package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import java.util.List;

/**
 * One mitigation: carries out an allowed proposal against the cluster. One class per kind. The
 * executor calls, in order: {@link #capture} when the action is planned, {@link #preconditions}
 * just before it runs, {@link #apply}, then {@link #verify}.
 */
interface Mitigation {

    ActionKind kind();

    /**
     * The uid of the object this action means, recorded with the PLANNED row, so that an action
     * resumed after a crash recognises that its object was already replaced. Null when not needed.
     */
    default String capture(String target) {
        return null;
    }

    /** What must hold just before the action runs; checked again when a person approves it. */
    default List<Precondition> preconditions() {
        return List.of();
    }

    /**
     * Applies the action. With {@code dryRun} the API server validates the change (server-side dry
     * run) without persisting it, so a dry run still proves the action would be accepted.
     */
    Outcome apply(Target target, boolean dryRun);

    /** Checks, after the action, that it had its effect; waits up to its own bound. */
    default Outcome verify(Target target) {
        return Outcome.done("nothing to verify");
    }

    /** True when {@link #undo} can revert the action. */
    default boolean undoable() {
        return false;
    }

    default Outcome undo(Target target) {
        return Outcome.failed(kind().wireName() + " cannot be undone", false);
    }

    /** What an action acts on: its target as proposed and the uid it captured when planned. */
    record Target(String name, String subjectUid) {

        String namespace() {
            int slash = name.indexOf('/');
            return slash < 0 ? null : name.substring(0, slash);
        }

        String local() {
            int slash = name.indexOf('/');
            return slash < 0 ? name : name.substring(slash + 1);
        }
    }
}
