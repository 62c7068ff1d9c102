package io.acceltriage.chat.teams;

import io.acceltriage.access.CurrentUser;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.chat.ChatDecisions;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
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
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the Approve and Reject links of Teams cards lead. A card sits in a shared channel, so holding
 * a link proves nothing about who clicked it: the link leads to a sign-in, and decides only for the
 * signed-in person it names (their token's name is the Entra object id the link was issued to).
 * GET only shows what the link would do (link previews and prefetchers follow GETs, so a GET never
 * acts); the page's button POSTs, which checks the signature, expiry and person again, spends the
 * link and decides as that person — through {@code Decisions}, like every other channel.
 */
@Path("/api/v1/approvals/{token}")
@Produces(MediaType.TEXT_HTML)
class ApprovalLinkResource {

    private final CurrentUser who;
    private final AuditLog audit;
    private final ApprovalLinks links;
    private final UsedApprovalLinks used;
    private final ChatDecisions decisions;
    private final Executor actions;
    private final Template confirm;
    private final Template result;

    ApprovalLinkResource(ApprovalLinks links, UsedApprovalLinks used, ChatDecisions decisions, Executor actions, CurrentUser who,
            AuditLog audit, @Location("chat/approval-confirm.html") Template confirm,
            @Location("chat/approval-result.html") Template result) {
        this.who = who;
        this.audit = audit;
        this.links = links;
        this.used = used;
        this.decisions = decisions;
        this.actions = actions;
        this.confirm = confirm;
        this.result = result;
    }

    @GET
    public Response show(@PathParam("token") String token) {
        Checked checked = check(token, false);
        if (checked.refusal() != null) {
            return checked.refusal();
        }
        ApprovalLinks.Grant grant = checked.grant();
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
        Checked checked = check(token, true);
        if (checked.refusal() != null) {
            return checked.refusal();
        }
        ApprovalLinks.Grant grant = checked.grant();
        if (!used.use(grant.nonce(), grant.actionId(), grant.approver())) {
            return page(Response.Status.GONE, "This link was already used", "An approval link works once; nothing was done.", null);
        }
        ChatUser user = new ChatUser("teams", who.getName(), null);
        boolean approve = grant.choice() == ApprovalLinks.Choice.APPROVE;
        String said = decisions.decide(user, grant.actionId(), approve, "rejected through a Teams approval link");
        String incident = actions.find(grant.actionId()).map(ActionRecord::incidentId).orElse(null);
        return page(Response.Status.OK, (approve ? "Approve " : "Reject ") + grant.actionId(), said, incident);
    }

    /** The grant of a link the signed-in approver it names opened, or the page that says why not. */
    private record Checked(ApprovalLinks.Grant grant, Response refusal) {}

    /** {@code auditStranger}: a decision tried by someone the link does not name is recorded (a look is not). */
    private Checked check(String token, boolean auditStranger) {
        ApprovalLinks.Grant grant;
        try {
            grant = links.check(token);
        } catch (ApprovalLinks.Refused e) {
            return new Checked(null, page(Response.Status.FORBIDDEN, "This link does not work", e.getMessage(), null));
        }
        if (!who.isSignedIn()) {
            return new Checked(null, signIn(token));
        }
        if (!who.getName().equals(grant.approver())) {
            if (auditStranger) {
                // Checked before the link is spent: someone else's click must not use up the approver's link.
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("action", grant.actionId());
                p.put("attempted", grant.choice().wireName() + " through an approval link");
                p.put("linkIssuedTo", grant.approver());
                p.put("reason", "the link names another approver");
                audit.append(actions.find(grant.actionId()).map(ActionRecord::incidentId).orElse(null), AuditKind.ACCESS_DENIED,
                        who.getName(), p);
            }
            return new Checked(null, notYours(grant));
        }
        return new Checked(grant, null);
    }

    /** To the login form, which comes back here: the relative Location keeps the browser on the host it used. */
    private static Response signIn(String token) {
        return Response.status(Response.Status.SEE_OTHER).header("Location", "/login?next="
                + URLEncoder.encode("/api/v1/approvals/" + token, StandardCharsets.UTF_8)).header("Cache-Control", "no-store").build();
    }

    private Response notYours(ApprovalLinks.Grant grant) {
        return page(Response.Status.FORBIDDEN, "This link is not yours", "This link was issued to " + grant.approver()
                + ", and only they can use it; you are signed in as " + who.getName() + ". Nothing was done.", null);
    }

    private Response page(Response.Status status, String heading, String message, String incidentId) {
        return Response.status(status).entity(result.data("heading", heading).data("message", message)
                .data("incidentId", incidentId)).type(MediaType.TEXT_HTML).build();
    }
}
