package io.acceltriage.action;

import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import java.time.Instant;

/**
 * An action as the store keeps it: written PLANNED before it runs, updated once after.
 * {@code subjectUid}: the uid of the object the action meant (a pod), so a resumed action never hits its replacement.
 * {@code atCheckpoint}: a gang restart that waits for the gang's next checkpoint before it runs.
 */
public record ActionRecord(String id, String incidentId, ActionKind kind, String target, Decision decision,
        ActionStatus status, boolean dryRun, String detail, Instant createdAt, Instant updatedAt, String subjectUid,
        boolean atCheckpoint) {

    public ActionRecord(String id, String incidentId, ActionKind kind, String target, Decision decision,
            ActionStatus status, boolean dryRun, String detail, Instant createdAt, Instant updatedAt, String subjectUid) {
        this(id, incidentId, kind, target, decision, status, dryRun, detail, createdAt, updatedAt, subjectUid, false);
    }
}
