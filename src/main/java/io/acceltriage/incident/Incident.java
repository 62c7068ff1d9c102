package io.acceltriage.incident;

import java.time.Instant;

/**
 * An incident's row: identity, subject, state and the headline of its assessment. The assessment
 * itself (evidence, diagnosis, proposals, verdicts, actions) is the document {@code assessmentJson}.
 */
public record Incident(
        String id,
        Subject subject,
        String node,
        IncidentState state,
        String family,
        Double confidence,
        int alertCount,
        Instant openedAt,
        Instant updatedAt,
        Instant resolvedAt,
        String summary,
        String assessmentJson) {}
