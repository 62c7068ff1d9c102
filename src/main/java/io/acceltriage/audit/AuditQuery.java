package io.acceltriage.audit;

import java.time.Instant;

/** Filters for the audit search; null means "any". {@code after} is the cursor: records with a larger seq. */
public record AuditQuery(String incidentId, AuditKind kind, String actor, Instant since, Instant until,
        String text, Long after, int limit) {

    public static AuditQuery forIncident(String incidentId) {
        return new AuditQuery(incidentId, null, null, null, null, null, null, 10_000);
    }
}
