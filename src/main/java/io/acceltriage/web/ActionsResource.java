package io.acceltriage.web;

import io.acceltriage.access.CurrentUser;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Approvals;
import io.acceltriage.action.Decisions;
import io.acceltriage.action.Executor;
import io.acceltriage.http.ErrorBody;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Actions over REST: list them, approve or reject a waiting one, undo a finished one. The person who
 * decides is the one signed in (bearer token or session), through {@link Decisions}.
 */
@Path("/api/v1/actions")
@Produces(MediaType.APPLICATION_JSON)
public class ActionsResource {

    /** A person's decision: who decides, and (for a rejection or a reset) why. */
    public record DecisionBody(String approver, String reason) {}

    private final Executor executor;
    private final Decisions decisions;
    private final CurrentUser who;

    ActionsResource(Executor executor, Decisions decisions, CurrentUser who) {
        this.who = who;
        this.executor = executor;
        this.decisions = decisions;
    }

    @GET
    public Response list(@QueryParam("status") String status) {
        List<ActionRecord> items;
        if (status == null || status.isBlank()) {
            items = executor.recent(200);
        } else {
            ActionStatus s;
            try {
                s = ActionStatus.valueOf(status.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                return error(400, "status '" + status + "' is unknown; one of " + List.of(ActionStatus.values()).stream()
                        .map(x -> x.name().toLowerCase(Locale.ROOT)).toList());
            }
            items = executor.withStatus(s);
        }
        return Response.ok(Map.of("items", items.stream().map(ActionsResource::view).toList())).build();
    }

    @GET
    @Path("{id}")
    public Response get(@PathParam("id") String id) {
        return executor.find(id).map(r -> Response.ok(view(r)).build()).orElseGet(() -> error(404, "no action " + id));
    }

    /** The audit log's actor column: a longer name could not be recorded, so it is refused here. */
    static final int MAX_NAME = 256;

    @POST
    @Path("{id}/approve")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response approve(@PathParam("id") String id, DecisionBody body) {
        return asDecider(who, body, me -> answer(decisions.approve(me, id)));
    }

    @POST
    @Path("{id}/reject")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response reject(@PathParam("id") String id, DecisionBody body) {
        return asDecider(who, body, me -> answer(decisions.reject(me, id, body == null ? null : body.reason())));
    }

    @POST
    @Path("{id}/undo")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response undo(@PathParam("id") String id, DecisionBody body) {
        return asDecider(who, body, me -> {
            Approvals.Result r = decisions.undo(me, id);
            return r.refusal() == Approvals.Refusal.NONE ? executor.find(id).map(a -> Response.ok(view(a)).build())
                    .orElseGet(() -> error(404, "no action " + id)) : answer(r);
        });
    }

    /**
     * Runs a decision as the signed-in person, the only one who can decide here. A body may name the
     * approver only to confirm who is signed in; naming someone else is refused, never taken on trust.
     */
    static Response asDecider(CurrentUser who, DecisionBody body, java.util.function.Function<String, Response> decision) {
        String refusal = invalid(body);
        if (refusal != null) {
            return error(400, refusal);
        }
        String me = who.getName();
        String claimed = body == null || body.approver() == null || body.approver().isBlank() ? null : body.approver();
        if (claimed != null && !claimed.equals(me)) {
            return error(403, "you are signed in as " + me + " and may not decide as " + claimed);
        }
        return decision.apply(me);
    }

    static Response answer(Approvals.Result r) {
        int code = switch (r.refusal()) {
            case NONE -> 200;
            case UNKNOWN_ACTION -> 404;
            case NOT_AN_APPROVER -> 403;
            case CONFLICT -> 409;
        };
        if (code != 200) {
            return error(code, r.message());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("action", r.actionId());
        out.put("status", r.status() == null ? null : r.status().name().toLowerCase(Locale.ROOT));
        out.put("message", r.message());
        return Response.ok(out).build();
    }

    /** Why a decision body cannot be taken as it is, or null. */
    static String invalid(DecisionBody body) {
        if (body != null && body.approver() != null && body.approver().length() > MAX_NAME) {
            return "approver is " + body.approver().length() + " characters long; a name has at most " + MAX_NAME;
        }
        return null;
    }

    static Map<String, Object> view(ActionRecord r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", r.id());
        out.put("incident", r.incidentId());
        out.put("kind", r.kind().wireName());
        out.put("target", r.target());
        out.put("decision", r.decision().wireName());
        out.put("status", r.status().name().toLowerCase(Locale.ROOT));
        out.put("dryRun", r.dryRun());
        out.put("detail", r.detail());
        out.put("createdAt", r.createdAt().toString());
        out.put("updatedAt", r.updatedAt().toString());
        return out;
    }

    static Response error(int code, String message) {
        return Response.status(code).entity(new ErrorBody(message)).build();
    }
}
