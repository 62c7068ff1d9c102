package io.acceltriage.web;

import io.acceltriage.http.Redirects;
import io.acceltriage.access.CurrentUser;
import io.acceltriage.action.Approvals;
import io.acceltriage.action.Decisions;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.incident.IncidentFilter;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server-rendered pages: incidents, and one incident's timeline with approve and reject for
 * pending actions. Usable without JavaScript; every change is a form POST followed by a redirect.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
class PagesResource {

    static final int PAGE_SIZE = 50;

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance incidents(List<IncidentView> incidents, String error, Map<String, String> filters,
                String older);

        static native TemplateInstance incident(IncidentPage page, String notice, boolean failed, boolean approvalsAvailable);
    }

    private final IncidentQueries queries;
    private final Decisions decisions;
    private final CurrentUser who;

    PagesResource(IncidentQueries queries, Decisions decisions, CurrentUser who) {
        this.queries = queries;
        this.decisions = decisions;
        this.who = who;
    }

    @GET
    public TemplateInstance index(@QueryParam("state") String state, @QueryParam("family") String family,
            @QueryParam("node") String node, @QueryParam("namespace") String namespace, @QueryParam("since") String since,
            @QueryParam("before") String before) {
        Map<String, String> filters = new LinkedHashMap<>();
        filters.put("state", blank(state));
        filters.put("family", blank(family));
        filters.put("node", blank(node));
        filters.put("namespace", blank(namespace));
        filters.put("since", blank(since));
        try {
            IncidentFilter f = IncidentQueries.filter(state, family, node, namespace, since, before, String.valueOf(PAGE_SIZE));
            List<IncidentView> items = queries.list(f);
            String older = items.size() < PAGE_SIZE ? null
                    : link("/", filters, "before", items.get(items.size() - 1).openedAt().toString());
            return Templates.incidents(items, null, filters, older);
        } catch (InvalidPayload e) {
            return Templates.incidents(List.of(), e.getMessage(), filters, null);
        }
    }

    @GET
    @Path("incidents/{id}")
    public Response incident(@PathParam("id") String id, @QueryParam("notice") String notice, @QueryParam("failed") boolean failed) {
        return queries.full(id)
                .map(v -> Response.ok(Templates.incident(IncidentPage.of(v), notice, failed, true)).build())
                .orElseGet(() -> Response.status(404).type(MediaType.TEXT_PLAIN).entity("no incident " + id).build());
    }

    @POST
    @Path("incidents/{id}/actions/{action}/approve")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response approve(@PathParam("id") String id, @PathParam("action") String action) {
        return decide(id, action, d -> d.approve(who.getName(), action));
    }

    @POST
    @Path("incidents/{id}/actions/{action}/reject")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response reject(@PathParam("id") String id, @PathParam("action") String action, @FormParam("reason") String reason) {
        String why = reason == null || reason.isBlank() ? "rejected on the incident page" : reason.strip();
        return decide(id, action, d -> d.reject(who.getName(), action, why));
    }

    private Response decide(String id, String action, java.util.function.Function<Decisions, Approvals.Result> decision) {
        var incident = queries.full(id);
        if (incident.isEmpty() || incident.get().actions().stream().noneMatch(a -> a.id().equals(action))) {
            return Response.status(404).type(MediaType.TEXT_PLAIN).entity("no action " + action + " in incident " + id).build();
        }
        Approvals.Result r = decision.apply(decisions);
        return back(id, r.message(), !r.accepted());
    }

    private static Response back(String id, String notice, boolean failed) {
        Map<String, String> q = new LinkedHashMap<>();
        q.put("notice", notice);
        q.put("failed", Boolean.toString(failed));
        return Redirects.seeOther(link("/incidents/" + id, q, null, null)).build();
    }

    static String link(String base, Map<String, String> params, String extraKey, String extraValue) {
        StringBuilder b = new StringBuilder(base);
        char sep = '?';
        Map<String, String> all = new LinkedHashMap<>(params);
        if (extraKey != null) {
            all.put(extraKey, extraValue);
        }
        for (Map.Entry<String, String> e : all.entrySet()) {
            if (e.getValue() != null) {
                b.append(sep).append(e.getKey()).append('=').append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
                sep = '&';
            }
        }
        return b.toString();
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
