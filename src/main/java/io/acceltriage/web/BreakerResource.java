package io.acceltriage.web;

import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.policy.Breaker;
import io.acceltriage.policy.PolicySource;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/** The circuit breaker over REST: its state, and the reset only a person listed in the policy's approvers may do. */
@Path("/api/v1/breaker")
@Produces(MediaType.APPLICATION_JSON)
public class BreakerResource {

    private final Breaker breaker;
    private final PolicySource policy;
    private final AuditLog audit;

    BreakerResource(Breaker breaker, PolicySource policy, AuditLog audit) {
        this.breaker = breaker;
        this.policy = policy;
        this.audit = audit;
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
        if (body == null || body.approver() == null || body.approver().isBlank()) {
            return ActionsResource.error(400, "name who resets it: {\"approver\": \"...\", \"reason\": \"...\"}");
        }
        String refusal = ActionsResource.invalid(body);
        if (refusal != null) {
            return ActionsResource.error(400, refusal);
        }
        if (!policy.current().approversOrEmpty().contains(body.approver())) {
            audit.append(null, AuditKind.ACCESS_DENIED, body.approver(), Map.of("attempted", "reset the circuit breaker",
                    "reason", "not an approver of policy " + policy.current().name()));
            return ActionsResource.error(403, body.approver() + " is not among the policy's approvers, who alone may reset the breaker");
        }
        boolean wasTripped = breaker.reset(body.approver());
        return Response.ok(Map.of("tripped", false, "wasTripped", wasTripped)).build();
    }

}
