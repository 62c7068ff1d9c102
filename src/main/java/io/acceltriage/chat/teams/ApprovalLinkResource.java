package io.acceltriage.chat.teams;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.chat.ChatDecisions;
import io.acceltriage.chat.ChatUser;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Optional;

/**
 * Where the Approve and Reject links of Teams cards lead. GET only shows what the link would do (link
 * previews and prefetchers follow GETs, so a GET never acts); the page's button POSTs, which checks
 * the signature and expiry again, spends the link and decides as the approver it was issued to —
 * through the same check and {@code Approvals} as every other channel.
 */
@Path("/api/v1/approvals/{token}")
@Produces(MediaType.TEXT_HTML)
class ApprovalLinkResource {

    private final ApprovalLinks links;
    private final UsedApprovalLinks used;
    private final ChatDecisions decisions;
    private final Executor actions;
    private final Template confirm;
    private final Template result;

    ApprovalLinkResource(ApprovalLinks links, UsedApprovalLinks used, ChatDecisions decisions, Executor actions,
            @Location("chat/approval-confirm.html") Template confirm, @Location("chat/approval-result.html") Template result) {
        this.links = links;
        this.used = used;
        this.decisions = decisions;
        this.actions = actions;
        this.confirm = confirm;
        this.result = result;
    }

    @GET
    public Response show(@PathParam("token") String token) {
        ApprovalLinks.Grant grant;
        try {
            grant = links.check(token);
        } catch (ApprovalLinks.Refused e) {
            return page(Response.Status.FORBIDDEN, "This link does not work", e.getMessage(), null);
        }
        if (used.used(grant.nonce())) {
            return page(Response.Status.GONE, "This link was already used", "An approval link works once.", null);
        }
        Optional<ActionRecord> action = actions.find(grant.actionId());
        if (action.isEmpty()) {
            return page(Response.Status.NOT_FOUND, "No such action", "There is no action " + grant.actionId() + ".", null);
        }
        if (action.get().status() != ActionStatus.AWAITING_APPROVAL) {
            return page(Response.Status.CONFLICT, "Nothing to decide", "Action " + grant.actionId() + " is "
                    + action.get().status().name().toLowerCase() + " already.", action.get().incidentId());
        }
        TemplateInstance t = confirm.data("action", action.get()).data("decision", grant.choice().wireName())
                .data("approver", grant.approver()).data("expires", grant.expires()).data("token", token);
        return Response.ok(t).build();
    }

    @POST
    public Response decide(@PathParam("token") String token) {
        ApprovalLinks.Grant grant;
        try {
            grant = links.check(token);
        } catch (ApprovalLinks.Refused e) {
            return page(Response.Status.FORBIDDEN, "This link does not work", e.getMessage(), null);
        }
        if (!used.use(grant.nonce(), grant.actionId(), grant.approver())) {
            return page(Response.Status.GONE, "This link was already used", "An approval link works once; nothing was done.", null);
        }
        ChatUser user = new ChatUser("teams", grant.approver(), null);
        boolean approve = grant.choice() == ApprovalLinks.Choice.APPROVE;
        String said = decisions.decide(user, grant.actionId(), approve, "rejected through a Teams approval link");
        String incident = actions.find(grant.actionId()).map(ActionRecord::incidentId).orElse(null);
        return page(Response.Status.OK, (approve ? "Approve " : "Reject ") + grant.actionId(), said, incident);
    }

    private Response page(Response.Status status, String heading, String message, String incidentId) {
        return Response.status(status).entity(result.data("heading", heading).data("message", message)
                .data("incidentId", incidentId)).type(MediaType.TEXT_HTML).build();
    }
}
