package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.action.Executor;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;

/** Reads incidents for the API and the page, and turns query parameters into filters or a 400. */
@ApplicationScoped
class IncidentQueries {

    private final IncidentStore incidents;
    private final AlertInbox inbox;
    private final Executor executor;
    private final AuditReader audit;

    IncidentQueries(IncidentStore incidents, AlertInbox inbox, Executor executor, AuditReader audit) {
        this.incidents = incidents;
        this.inbox = inbox;
        this.executor = executor;
        this.audit = audit;
    }

    List<IncidentView> list(IncidentFilter filter) {
        return incidents.list(filter).stream().map(IncidentView::headline).toList();
    }

    Optional<IncidentView> full(String id) {
        return incidents.find(id).map(this::full);
    }

    private IncidentView full(Incident i) {
        JsonNode assessment = i.assessmentJson() == null ? null : Json.read(i.assessmentJson(), JsonNode.class);
        return new IncidentView(i.id(), i.subject().key(), i.node(), i.state().name().toLowerCase(), i.family(), i.confidence(),
                i.alertCount(), i.openedAt(), i.updatedAt(), i.resolvedAt(), i.summary(), inbox.ofIncident(i.id()), assessment,
                executor.ofIncident(i.id()), audit.find(AuditQuery.forIncident(i.id())));
    }

    static IncidentFilter filter(String state, String family, String node, String namespace, String since, String before,
            String limit) {
        IncidentState s = null;
        if (state != null && !state.isBlank()) {
            try {
                s = IncidentState.valueOf(state.toUpperCase().replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new InvalidPayload("state must be one of triaging, mitigated, awaiting_approval, escalated, no_fault, resolved; got '"
                        + abbreviate(state) + "'");
            }
        }
        if (family != null && !family.isBlank() && !List.of("infrastructure", "device", "application", "none").contains(family)) {
            throw new InvalidPayload("family must be infrastructure, device, application or none; got '" + abbreviate(family) + "'");
        }
        int n = 50;
        if (limit != null && !limit.isBlank()) {
            try {
                n = Integer.parseInt(limit.strip());
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 1 || n > 500) {
                throw new InvalidPayload("limit must be a whole number between 1 and 500; got '" + abbreviate(limit) + "'");
            }
        }
        return new IncidentFilter(s, blank(family), blank(node), blank(namespace), Rfc3339.param("since", since), Rfc3339.param("before", before), n);
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
