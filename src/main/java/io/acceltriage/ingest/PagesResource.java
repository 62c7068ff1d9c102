package io.acceltriage.ingest;

import io.acceltriage.incident.IncidentFilter;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** The server-rendered pages: incidents, and one incident's timeline. Usable without JavaScript. */
@Path("/")
@Produces(MediaType.TEXT_HTML)
class PagesResource {

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance incidents(List<IncidentView> incidents, String error, String family, String state,
                List<String> families, List<String> states);

        static native TemplateInstance incident(IncidentView incident);
    }

    private static final List<String> FAMILIES = List.of("device", "infrastructure", "application", "none");
    private static final List<String> STATES = java.util.Arrays.stream(io.acceltriage.incident.IncidentState.values())
            .map(st -> st.name().toLowerCase()).toList();

    private final IncidentQueries queries;

    PagesResource(IncidentQueries queries) {
        this.queries = queries;
    }

    @GET
    public TemplateInstance index(@QueryParam("family") String family, @QueryParam("state") String state) {
        try {
            IncidentFilter f = IncidentQueries.filter(state, family, null, null, null, null, 100);
            return Templates.incidents(queries.list(f), null, family, state, FAMILIES, STATES);
        } catch (InvalidPayload e) {
            return Templates.incidents(List.of(), e.getMessage(), family, state, FAMILIES, STATES);
        }
    }

    @GET
    @Path("incidents/{id}")
    public Response incident(@PathParam("id") String id) {
        return queries.full(id).map(v -> Response.ok(Templates.incident(v)).build())
                .orElseGet(() -> Response.status(404).type(MediaType.TEXT_PLAIN).entity("no incident " + id).build());
    }
}
