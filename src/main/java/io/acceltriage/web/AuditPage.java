package io.acceltriage.web;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.audit.AuditVerifier;
import io.acceltriage.audit.ChainVerdict;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The audit search page: the same filters and cursor as GET /api/v1/audit, and a button that verifies the chain. */
@Path("/audit")
@Produces(MediaType.TEXT_HTML)
class AuditPage {

    static final int PAGE_SIZE = 100;

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance audit(List<IncidentPage.AuditRow> records, Map<String, String> filters, List<String> kinds,
                String error, String next, ChainVerdict verdict, Map<Long, String> incidents);
    }

    private final AuditReader reader;
    private final AuditVerifier verifier;

    AuditPage(AuditReader reader, AuditVerifier verifier) {
        this.reader = reader;
        this.verifier = verifier;
    }

    @GET
    public TemplateInstance search(@QueryParam("incident") String incident, @QueryParam("kind") String kind,
            @QueryParam("actor") String actor, @QueryParam("since") String since, @QueryParam("until") String until,
            @QueryParam("q") String text, @QueryParam("after") Long after, @QueryParam("verify") boolean verify) {
        Map<String, String> filters = new LinkedHashMap<>();
        filters.put("incident", blank(incident));
        filters.put("kind", blank(kind));
        filters.put("actor", blank(actor));
        filters.put("since", blank(since));
        filters.put("until", blank(until));
        filters.put("q", blank(text));
        List<String> kinds = Arrays.stream(AuditKind.values()).map(AuditKind::wireName).toList();
        ChainVerdict verdict = verify ? verifier.verify() : null;
        try {
            AuditQuery q = new AuditQuery(filters.get("incident"), filters.get("kind") == null ? null : AuditKind.fromWireName(kind),
                    filters.get("actor"), Rfc3339.param("since", since), Rfc3339.param("until", until),
                    filters.get("q"), after, PAGE_SIZE);
            List<AuditRecord> found = reader.find(q);
            List<IncidentPage.AuditRow> rows = new ArrayList<>();
            Map<Long, String> incidents = new LinkedHashMap<>();
            for (AuditRecord r : found) {
                rows.add(new IncidentPage.AuditRow(r.seq(), PageText.time(r.at()), PageText.ago(r.at(), java.time.Instant.now()), r.kind().wireName(), r.actor(), PageText.fields(r.payload())));
                if (r.incidentId() != null) {
                    incidents.put(r.seq(), r.incidentId());
                }
            }
            String next = found.size() < PAGE_SIZE ? null
                    : PagesResource.link("/audit", filters, "after", Long.toString(found.get(found.size() - 1).seq()));
            return Templates.audit(rows, filters, kinds, null, next, verdict, incidents);
        } catch (IllegalArgumentException | InvalidPayload e) {
            return Templates.audit(List.of(), filters, kinds, e.getMessage(), null, verdict, Map.of());
        }
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
