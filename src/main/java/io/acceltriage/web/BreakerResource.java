package io.acceltriage.web;

import io.acceltriage.access.CurrentUser;
import io.acceltriage.action.Approvals;
import io.acceltriage.action.Decisions;
import io.acceltriage.policy.Breaker;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The circuit breaker over REST: its state, and the reset that only a person listed in the policy's
 * approvers may do, as the signed-in person (a body naming someone else is refused).
 */
@Path("/api/v1/breaker")
@Produces(MediaType.APPLICATION_JSON)
public class BreakerResource {

    private final Breaker breaker;
    private final Decisions decisions;
    private final CurrentUser who;

    BreakerResource(Breaker breaker, Decisions decisions, CurrentUser who) {
        this.breaker = breaker;
        this.decisions = decisions;
        this.who = who;
    }

    @GET
    public Response breakerState() {
        Map<String, Object> out = new LinkedHashMap<>();
        var trip = breaker.tripped();
        out.put("tripped", trip.isPresent());
        trip.ifPresent(t -> {
            out.put("trippedAt", t.at().toString());
            out.put("reason", t.reason());
        });
        return Response.ok(out).build();
    }

    @POST
    @Path("reset")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response reset(ActionsResource.DecisionBody body) {
        return ActionsResource.asDecider(who, body, me -> {
            Approvals.Result r = decisions.resetBreaker(me);
            return r.refusal() == Approvals.Refusal.NONE
                    ? Response.ok(Map.of("tripped", breaker.tripped().isPresent(), "wasTripped", r.accepted())).build()
                    : ActionsResource.answer(r);
        });
    }
}
