package io.acceltriage.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.access.CurrentUser;
import io.acceltriage.drill.DrillResult;
import io.acceltriage.drill.DrillRunner;
import io.acceltriage.http.ErrorBody;
import io.acceltriage.store.Json;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fault drills over REST: {@code POST /api/v1/drills {"name":…, "mode":…}} runs one (on the sandbox by default;
 * {@code "mode": "shadow"} delivers its alert only and forces its incident into dry run, the only mode a real
 * cluster allows) and answers its stage table when it is done (approver or admin, as every change); {@code GET} lists the recorded
 * results, newest first, with the drills there are.
 */
@Path("/api/v1/drills")
@Produces(MediaType.APPLICATION_JSON)
class DrillsResource {

    private static final int MAX_LIMIT = 500;

    private final DrillRunner drills;
    private final CurrentUser who;

    DrillsResource(DrillRunner drills, CurrentUser who) {
        this.drills = drills;
        this.who = who;
    }

    @GET
    public Response results(@QueryParam("limit") String limit) {
        int n = 50;
        if (limit != null && !limit.isBlank()) {
            if (!limit.matches("\\d{1,4}") || Integer.parseInt(limit) < 1 || Integer.parseInt(limit) > MAX_LIMIT) {
                return Response.status(400).entity(new ErrorBody("limit must be a number from 1 to " + MAX_LIMIT)).build();
            }
            n = Integer.parseInt(limit);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("drills", drills.catalog().names());
        out.put("items", drills.results(n));
        return Response.ok(out).build();
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    public Response run(String body) {
        String name;
        String mode;
        String node;
        try {
            JsonNode json = Json.MAPPER.readTree(body == null || body.isBlank() ? "{}" : body);
            if (!json.isObject()) throw new IllegalArgumentException();
            var fields = json.fieldNames();
            while (fields.hasNext()) {
                String f = fields.next();
                if (!"name".equals(f) && !"mode".equals(f) && !"node".equals(f)) {
                    return bad("field \"" + f + "\" is unknown; the body is {\"name\": \"<drill>\", \"mode\": \"sandbox|shadow\","
                            + " \"node\": \"<a node of the cluster, instead of the drill's>\"}");
                }
            }
            if (!json.path("name").isTextual() || json.path("name").asText().isBlank()) {
                return bad("name is required: one of " + drills.catalog().names() + ", e.g. {\"name\": \"xid79-training-node\"}");
            }
            name = json.path("name").asText();
            if (json.has("mode") && !(json.get("mode").isTextual() && List.of(DrillResult.SANDBOX, DrillResult.SHADOW).contains(json.get("mode").asText()))) {
                return bad("mode is sandbox (inject the fault into the sandbox) or shadow (its alert only, every action a dry run)");
            }
            mode = json.has("mode") ? json.get("mode").asText() : DrillResult.SANDBOX;
            if (json.has("node") && !(json.get("node").isTextual() && !json.get("node").asText().isBlank())) {
                return bad("node is the name of a node of the cluster, e.g. {\"name\": \"xid79-training-node\", \"mode\": \"shadow\","
                        + " \"node\": \"gpu-node-17\"}");
            }
            node = json.has("node") ? json.get("node").asText() : null;
        } catch (Exception e) {
            return bad("the body must be a JSON object such as {\"name\": \"xid79-training-node\"}");
        }
        try {
            return Response.ok(drills.run(name, who.getName(), mode, node)).build();
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        } catch (DrillRunner.Refused e) {
            return Response.status(409).entity(new ErrorBody(e.getMessage())).build();
        }
    }

    private static Response bad(String reason) {
        return Response.status(400).entity(new ErrorBody(reason)).build();
    }
}
