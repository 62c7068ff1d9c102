package io.acceltriage.web;

import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.Executor;
import io.acceltriage.config.KubernetesNames;
import io.acceltriage.history.FaultHistory;
import io.acceltriage.history.GpuFault;
import io.acceltriage.http.ErrorBody;
import io.acceltriage.http.InvalidPayload;
import io.acceltriage.http.Rfc3339;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * GET /api/v1/gpus/{node}/{gpu}/history?since=…: every XID platform sources reported on one GPU (its
 * index on the node or its UUID) across incidents, and every action that ran on its node: what
 * support is sent when a GPU is a repeat offender.
 */
@Path("/api/v1/gpus/{node}/{gpu}/history")
@Produces(MediaType.APPLICATION_JSON)
class GpuHistoryResource {

    /** Without {@code since}: the last 30 days. */
    static final Duration DEFAULT_WINDOW = Duration.ofDays(30);

    /** An action on the node: what, on which target, how it ended, for which incident, when. */
    record Remediation(String kind, String target, String status, String incident, Instant at) {}

    record GpuHistory(String node, String gpu, Instant since, List<GpuFault> faults, List<Remediation> remediations) {}

    private final FaultHistory history;
    private final Executor executor;

    GpuHistoryResource(FaultHistory history, Executor executor) {
        this.history = history;
        this.executor = executor;
    }

    @GET
    public Response history(@PathParam("node") String node, @PathParam("gpu") String gpu, @QueryParam("since") String since) {
        try {
            if (!KubernetesNames.isName(node)) {
                throw new InvalidPayload("node must be a Kubernetes node name; got '" + cut(node) + "'");
            }
            if (gpu == null || !gpu.matches("\\d{1,3}|GPU-[0-9A-Fa-f-]{8,64}|MIG-[0-9A-Fa-f-]{8,64}")) {
                throw new InvalidPayload("gpu must be the GPU's index on the node (0, 1, …) or its UUID (GPU-…); got '" + cut(gpu) + "'");
            }
            Instant from = Rfc3339.param("since", since);
            Instant start = from == null ? Instant.now().minus(DEFAULT_WINDOW) : from;
            List<Remediation> actions = executor.onNode(node, start).stream().map(GpuHistoryResource::remediation).toList();
            return Response.ok(new GpuHistory(node, gpu, start, history.onGpu(node, gpu, start), actions)).build();
        } catch (InvalidPayload e) {
            return Response.status(400).entity(new ErrorBody(e.getMessage())).build();
        }
    }

    private static Remediation remediation(ActionRecord r) {
        return new Remediation(r.kind().wireName(), r.target(), r.status().name().toLowerCase(), r.incidentId(), r.createdAt());
    }

    private static String cut(String s) {
        return s == null ? "" : s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
