package io.acceltriage.web;

import io.acceltriage.http.ErrorBody;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import io.acceltriage.reliability.Reliability;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;

/** GET /api/v1/reliability?since=…&pool=…: time to decide, mitigate, resolve and GPU-hours lost, per family and incident. */
@Path("/api/v1/reliability")
@Produces(MediaType.APPLICATION_JSON)
class ReliabilityResource {

    /** Without {@code since}: the last week. */
    static final Duration DEFAULT_WINDOW = Duration.ofDays(7);

    private final Reliability reliability;

    ReliabilityResource(Reliability reliability) {
        this.reliability = reliability;
    }

    @GET
    public Response report(@QueryParam("since") String since, @QueryParam("pool") String pool) {
        try {
            Instant from = Rfc3339.param("since", since);
            return Response.ok(reliability.since(from == null ? Instant.now().minus(DEFAULT_WINDOW) : from, pool(pool))).build();
        } catch (InvalidPayload e) {
            return Response.status(400).entity(new ErrorBody(e.getMessage())).build();
        }
    }

    /** The pool parameter: none when blank, else a label value (the API and the page check it alike). */
    static String pool(String pool) {
        if (pool == null || pool.isBlank()) return null;
        if (!pool.matches("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")) {
            throw new InvalidPayload("pool must be a Kubernetes label value (the pool label's value); got '"
                    + (pool.length() > 80 ? pool.substring(0, 80) + "…" : pool) + "'");
        }
        return pool;
    }
}
