package io.acceltriage.web;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.audit.AuditVerifier;
import io.acceltriage.audit.ChainVerdict;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The audit API: search with filters and a cursor, and verification of the chain. */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
class AuditResource {

    private final AuditReader reader;
    private final AuditVerifier verifier;

    AuditResource(AuditReader reader, AuditVerifier verifier) {
        this.reader = reader;
        this.verifier = verifier;
    }

    @GET
    public Response search(@QueryParam("incident") String incident, @QueryParam("kind") String kind,
            @QueryParam("actor") String actor, @QueryParam("since") String since, @QueryParam("until") String until,
            @QueryParam("q") String text, @QueryParam("after") String after, @QueryParam("limit") String limit) {
        AuditQuery q;
        try {
            long n = number("limit", limit, 100);
            if (n < 1 || n > 1000) throw new IllegalArgumentException("limit must be between 1 and 1000; got " + n);
            Long from = after == null || after.isBlank() ? null : number("after", after, 0);
            q = new AuditQuery(blank(incident), kind == null || kind.isBlank() ? null : AuditKind.fromWireName(kind), blank(actor),
                    Rfc3339.param("since", since), Rfc3339.param("until", until), blank(text), from, (int) n);
        } catch (IllegalArgumentException | InvalidPayload e) {
            return Response.status(400).entity(Map.of("error", e.getMessage())).build();
        }
        List<AuditRecord> items = reader.find(q);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("next", items.size() == q.limit() ? items.get(items.size() - 1).seq() : null);
        return Response.ok(body).build();
    }

    @GET
    @Path("verify")
    public Response verify() {
        ChainVerdict v = verifier.verify();
        return Response.ok(v).build();
    }

    /** A whole number, or {@code otherwise} when the parameter is absent. */
    private static long number(String name, String value, long otherwise) {
        if (value == null || value.isBlank()) return otherwise;
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number; got '" + abbreviate(value) + "'");
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
