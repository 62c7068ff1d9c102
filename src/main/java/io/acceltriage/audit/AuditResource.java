package io.acceltriage.audit;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
            @QueryParam("q") String text, @QueryParam("after") Long after, @QueryParam("limit") Integer limit) {
        AuditQuery q;
        try {
            int n = limit == null ? 100 : limit;
            if (n < 1 || n > 1000) throw new IllegalArgumentException("limit must be between 1 and 1000; got " + n);
            q = new AuditQuery(blank(incident), kind == null || kind.isBlank() ? null : AuditKind.fromWireName(kind), blank(actor),
                    time("since", since), time("until", until), blank(text), after, n);
        } catch (IllegalArgumentException e) {
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

    private static Instant time(String name, String value) {
        if (value == null || value.isBlank()) return null;
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " must be an RFC 3339 time; got '" + value + "'");
        }
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
