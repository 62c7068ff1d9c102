package io.acceltriage.web;

import io.acceltriage.policy.CircuitBreakerControl;
import jakarta.enterprise.inject.Instance;
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
                String older, Map<String, Long> counts, Map<String, String> done);

        static native TemplateInstance incident(IncidentPage page, String notice, boolean failed, boolean approvalsAvailable,
                boolean breakerTripped, IncidentCharts.View charts);
    }

    private final IncidentQueries queries;
    private final Decisions decisions;
    private final CurrentUser who;
    private final Instance<CircuitBreakerControl> breaker;
    private final io.acceltriage.action.Executor actions;
    private final IncidentCharts charts;

    PagesResource(IncidentQueries queries, Decisions decisions, CurrentUser who,
            Instance<CircuitBreakerControl> breaker, io.acceltriage.action.Executor actions, IncidentCharts charts) {
        this.actions = actions;
        this.charts = charts;
        this.queries = queries;
        this.decisions = decisions;
        this.who = who;
        this.breaker = breaker;
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
            Map<String, Long> counts = new java.util.TreeMap<>(items.stream()
                    .collect(java.util.stream.Collectors.groupingBy(IncidentView::state, java.util.stream.Collectors.counting())));
            Map<String, String> done = new java.util.HashMap<>();
            for (IncidentView i : items) done.put(i.id(), whatWasDone(actions.ofIncident(i.id())));
            return Templates.incidents(items, null, filters, older, counts, done);
        } catch (InvalidPayload e) {
            return Templates.incidents(List.of(), e.getMessage(), filters, null, Map.of(), Map.of());
        }
    }

    @GET
    @Path("incidents/{id}")
    public Response incident(@PathParam("id") String id, @QueryParam("notice") String notice, @QueryParam("failed") boolean failed) {
        return queries.full(id)
                .map(v -> Response.ok(Templates.incident(IncidentPage.of(v), notice, failed, true,
                        breaker.isResolvable() && breaker.get().tripped(), charts.of(v, java.time.Instant.now()))).build())
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

    /** One row's actions in a few words: "cordon-node, restart-group; reset-gpu awaiting approval". */
    static String whatWasDone(List<io.acceltriage.action.ActionRecord> records) {
        List<String> ran = new java.util.ArrayList<>();
        List<String> other = new java.util.ArrayList<>();
        for (var a : records) {
            if (a.status() == io.acceltriage.action.ActionStatus.SUCCEEDED) ran.add(a.kind().wireName());
            else other.add(a.kind().wireName() + " " + a.status().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
        }
        String text = String.join(", ", ran);
        if (!other.isEmpty()) text += (text.isEmpty() ? "" : "; ") + String.join(", ", other);
        return text.isEmpty() ? "nothing" : text;
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
