package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.StoredAlert;
import java.time.Instant;
import java.util.List;

/** An incident as the API shows it: headline, alerts, the assessment document, actions and the audited timeline. */
public record IncidentView(String id, String subject, String node, String state, String family, Double confidence,
        int alertCount, Instant openedAt, Instant updatedAt, Instant resolvedAt, String summary, List<StoredAlert> alerts,
        JsonNode assessment, List<ActionRecord> actions, List<AuditRecord> timeline) {

    static IncidentView headline(Incident i) {
        return new IncidentView(i.id(), i.subject().key(), i.node(), i.state().name().toLowerCase(), i.family(), i.confidence(),
                i.alertCount(), i.openedAt(), i.updatedAt(), i.resolvedAt(), i.summary(), null, null, null, null);
    }
}
