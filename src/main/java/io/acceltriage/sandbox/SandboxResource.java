package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The sandbox's HTTP face: its nodes, fault injection with alert delivery, reset, and the node exporters. */
@Path("/")
public class SandboxResource {

    private static final Set<String> FAULT_FIELDS = Set.of("kind", "node", "gpu", "xid", "pod");

    private final String mode;
    private final Instance<Sandbox> sandbox;
    private final AlertWebhook webhook;
    /** The sandbox command: nothing here triages, so a fault's alert is handed to the caller, not delivered. */
    private final boolean serveOnly;

    @Inject
    SandboxResource(@ConfigProperty(name = "acceltriage.cluster.mode", defaultValue = "sandbox") String mode,
            @ConfigProperty(name = "acceltriage.sandbox.serve-only", defaultValue = "false") boolean serveOnly,
            Instance<Sandbox> sandbox, AlertWebhook webhook) {
        this.mode = mode;
        this.serveOnly = serveOnly;
        this.sandbox = sandbox;
        this.webhook = webhook;
    }

    /** How many requests the service has made of the simulated API server: benchmarks divide it by the triages run. */
    @GET
    @Path("api/v1/sandbox/api-requests")
    @Produces(MediaType.APPLICATION_JSON)
    public Response apiRequests() {
        if (off()) {
            return offResponse();
        }
        return Response.ok(Map.of("requests", sandbox.get().serviceRequests())).build();
    }

    /**
     * The writes the simulated API server accepted, oldest first ({@code "PATCH /api/v1/nodes/n cordon"}, {@code "POST
     * …/eviction"}, …; at most the last {@value SandboxDispatcher#WRITES_KEPT}): what the processes sharing the cluster
     * did to it, counted by the replica test.
     */
    @GET
    @Path("api/v1/sandbox/writes")
    @Produces(MediaType.APPLICATION_JSON)
    public Response writes() {
        if (off()) {
            return offResponse();
        }
        return Response.ok(Map.of("writes", sandbox.get().cluster().apiServer().writes())).build();
    }

    @GET
    @Path("api/v1/sandbox/nodes")
    @Produces(MediaType.APPLICATION_JSON)
    public Response nodes() {
        if (off()) {
            return offResponse();
        }
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (Node node : sandbox.get().client().nodes().list().getItems()) {
            Map<String, String> labels = node.getMetadata().getLabels();
            String resource = node.getStatus().getCapacity().containsKey("nvidia.com/gpu") ? "nvidia.com/gpu"
                    : node.getStatus().getCapacity().containsKey("google.com/tpu") ? "google.com/tpu" : null;
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", node.getMetadata().getName());
            row.put("pool", labels.get("acceltriage.io/pool"));
            row.put("accelerator", labels.getOrDefault("nvidia.com/gpu.product",
                    labels.getOrDefault("cloud.google.com/gke-tpu-accelerator", "none")));
            row.put("count", resource == null ? 0 : amount(node.getStatus().getCapacity().get(resource)));
            row.put("allocatable", resource == null ? 0 : amount(node.getStatus().getAllocatable().get(resource)));
            row.put("cordoned", Boolean.TRUE.equals(node.getSpec().getUnschedulable()));
            row.put("ready", node.getStatus().getConditions().stream()
                    .filter(c -> c.getType().equals("Ready")).map(NodeCondition::getStatus)
                    .anyMatch("True"::equals));
            nodes.add(row);
        }
        return Response.ok(nodes).build();
    }

    @POST
    @Path("api/v1/sandbox/faults")
    @Produces(MediaType.APPLICATION_JSON)
    public Response inject(String body) {
        if (off()) {
            return offResponse();
        }
        Fault fault;
        try {
            fault = parse(body);
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
        FiredAlert alert;
        try {
            alert = sandbox.get().inject(fault);
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            // The fault's edit met a change the service made to the same object meanwhile (its own cordon; a restart
            // that replaced the pod the fault was checked against).
            if (e.getCode() != 409 && e.getCode() != 404) throw e;
            return error(409, "the simulated cluster changed while the fault was injected (" + e.getMessage()
                    + "); inject it again");
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("fault", fault);
        answer.put("alert", alert);
        if (serveOnly) {
            answer.put("delivered", false);
            answer.put("payload", AlertWebhook.payload(alert));
            return Response.accepted(answer).build();
        }
        AlertWebhook.Delivery delivery = webhook.deliver(alert);
        answer.put("delivered", delivery.delivered());
        answer.put("deliveryError", delivery.error());
        return Response.accepted(answer).build();
    }

    @POST
    @Path("api/v1/sandbox/reset")
    @Produces(MediaType.APPLICATION_JSON)
    public Response reset() {
        if (off()) {
            return offResponse();
        }
        sandbox.get().reset();
        return Response.ok(Map.of("reset", true)).build();
    }

    /**
     * Starts a node-agent rollout in the sandbox: {@code {"daemonSet": "nvidia-dcgm-exporter", "image": "…", "broken": false}};
     * the GPU operator's DaemonSet gets a new revision that rolls node by node while its strategy lets it. A broken
     * revision fails the DCGM diagnostic on the nodes that run it. No alert: a rollout by itself is no fault.
     */
    @POST
    @Path("api/v1/sandbox/rollouts")
    @Produces(MediaType.APPLICATION_JSON)
    public Response rollOut(String body) {
        if (off()) {
            return offResponse();
        }
        try {
            Map<String, Object> fields;
            try {
                fields = ObjectStore.JSON.readValue(body == null || body.isBlank() ? "{}" : body, Map.class);
            } catch (Exception e) {
                throw new IllegalArgumentException("the body must be a JSON object such as {\"daemonSet\":\"nvidia-dcgm-exporter\","
                        + "\"image\":\"nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.4-ubuntu22.04\",\"broken\":false}");
            }
            for (String field : fields.keySet()) {
                if (!List.of("daemonSet", "image", "broken").contains(field)) {
                    throw new IllegalArgumentException("field \"" + field + "\" is unknown; allowed: daemonSet, image, broken");
                }
            }
            Object broken = fields.getOrDefault("broken", false);
            if (!(broken instanceof Boolean b)) throw new IllegalArgumentException("broken must be true or false, got " + broken);
            return Response.accepted(sandbox.get().rollOut(text(fields, "daemonSet"), text(fields, "image"), b)).build();
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
    }

    /** The simulated pretraining gang (ml/llm-pretrain) saves a checkpoint now, as its trainer does every checkpoint-every. */
    @POST
    @Path("api/v1/sandbox/checkpoint")
    @Produces(MediaType.APPLICATION_JSON)
    public Response checkpoint() {
        if (off()) {
            return offResponse();
        }
        java.time.Instant at = sandbox.get().cluster().checkpointNow();
        if (at == null) {
            return error(409, "ml/llm-pretrain does not run whole (4 members Ready), so its trainer saves no checkpoint");
        }
        return Response.ok(Map.of("workload", "ml/llm-pretrain", "checkpointedAt", at.toString())).build();
    }

    @GET
    @Path("sandbox/exporter/{node}/metrics")
    public Response exporter(@PathParam("node") String node) {
        if (off()) {
            return offResponse();
        }
        Sandbox.pause(sandbox.get().latency());
        try {
            return Response.ok(sandbox.get().exporterText(node), "text/plain; version=0.0.4; charset=utf-8").build();
        } catch (IllegalArgumentException e) {
            return error(404, e.getMessage());
        } catch (ExporterUnavailableException e) {
            return error(503, e.getMessage());
        }
    }

    /** The request body as a fault, with errors that say which field is wrong and what is allowed. */
    static Fault parse(String body) {
        Map<String, Object> fields;
        try {
            fields = ObjectStore.JSON.readValue(body == null || body.isBlank() ? "{}" : body, Map.class);
        } catch (Exception e) {
            throw new IllegalArgumentException("the body must be a JSON object such as {\"kind\":\"xid\","
                    + "\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}");
        }
        for (String field : fields.keySet()) {
            if (!FAULT_FIELDS.contains(field)) {
                throw new IllegalArgumentException("field \"" + field + "\" is unknown; allowed: kind, node, gpu, xid, pod");
            }
        }
        return new Fault(text(fields, "kind"), text(fields, "node"), integer(fields, "gpu"), integer(fields, "xid"),
                text(fields, "pod"));
    }

    private static String text(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException(name + " must be a string, got " + v);
        }
        return s;
    }

    private static Integer integer(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Integer i) {
            return i;
        }
        if (v instanceof String s && s.matches("\\d{1,6}")) {
            return Integer.parseInt(s);
        }
        throw new IllegalArgumentException(name + " must be a non-negative integer, got " + v);
    }

    private static int amount(Quantity q) {
        return q == null ? 0 : q.getNumericalAmount().intValue();
    }

    private boolean off() {
        return !"sandbox".equalsIgnoreCase(mode.trim());
    }

    private Response offResponse() {
        return error(404, "the sandbox is off: ACCELTRIAGE_CLUSTER_MODE=" + mode);
    }

    private static Response error(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(Map.of("error", message)).build();
    }
}
