package io.acceltriage.web;

import io.acceltriage.http.ErrorBody;
import io.acceltriage.http.InvalidPayload;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;

/** The incidents API: list with filters and a cursor, and one incident with its whole timeline. */
@Path("/api/v1/incidents")
@Produces(MediaType.APPLICATION_JSON)
class IncidentsResource {

    private final IncidentQueries queries;

    IncidentsResource(IncidentQueries queries) {
        this.queries = queries;
    }

    @GET
    public Response list(@QueryParam("state") String state, @QueryParam("family") String family, @QueryParam("node") String node,
            @QueryParam("namespace") String namespace, @QueryParam("since") String since, @QueryParam("before") String before,
            @QueryParam("limit") String limit) {
        try {
            List<IncidentView> items = queries.list(IncidentQueries.filter(state, family, node, namespace, since, before, limit));
            String next = items.isEmpty() ? null : items.get(items.size() - 1).openedAt().toString();
            return Response.ok(Map.of("items", items, "next", next == null ? "" : next)).build();
        } catch (InvalidPayload e) {
            return Response.status(400).entity(new ErrorBody(e.getMessage())).build();
        }
    }

    @GET
    @Path("{id}")
    public Response get(@PathParam("id") String id) {
        return queries.full(id).map(v -> Response.ok(v).build())
                .orElseGet(() -> Response.status(404).entity(new ErrorBody("no incident " + id)).build());
    }
}
