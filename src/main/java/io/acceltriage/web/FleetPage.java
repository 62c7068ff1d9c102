package io.acceltriage.web;

import io.acceltriage.access.CurrentUser;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.policy.CircuitBreakerControl;
import io.acceltriage.store.Database;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fleet at a glance: accelerator nodes by pool, which are cordoned and whether the agent did it
 * (from the actions table), and the circuit breaker with its reset.
 */
@Path("/fleet")
@Produces(MediaType.TEXT_HTML)
class FleetPage {

    record NodeRow(String name, String accelerator, int capacity, int allocatable, boolean ready, boolean cordoned,
            String cordonedBy, String incident) {}

    record Pool(String name, List<NodeRow> nodes, long cordoned, long byAgent) {}

    /** The breaker as the page shows it; {@code known} false when no breaker is built in. */
    record Breaker(boolean known, boolean tripped) {}

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance fleet(List<Pool> pools, Breaker breaker, String error, String notice);
    }

    private final KubernetesClient client;
    private final Database database;
    private final Instance<CircuitBreakerControl> breaker;
    private final CurrentUser who;
    private final NodeAgents knowledge = NodeAgents.load();

    FleetPage(KubernetesClient client, Database database, Instance<CircuitBreakerControl> breaker, CurrentUser who) {
        this.client = client;
        this.database = database;
        this.breaker = breaker;
        this.who = who;
    }

    @GET
    public TemplateInstance fleet(@QueryParam("notice") String notice) {
        Breaker b = breaker.isResolvable() ? new Breaker(true, breaker.get().tripped()) : new Breaker(false, false);
        try {
            return Templates.fleet(pools(), b, null, notice);
        } catch (KubernetesClientException e) {
            return Templates.fleet(List.of(), b, "The Kubernetes API did not answer (" + e.getMessage()
                    + "); the fleet cannot be shown until it does.", notice);
        }
    }

    @POST
    @Path("breaker/reset")
    public Response reset() {
        if (!breaker.isResolvable()) {
            return Response.seeOther(URI.create("/fleet?notice=" + encode("This build has no circuit breaker to reset."))).build();
        }
        breaker.get().reset(who.principal().name());
        return Response.seeOther(URI.create("/fleet?notice=" + encode("Circuit breaker reset by " + who.principal().name() + "."))).build();
    }

    private List<Pool> pools() {
        Map<String, String[]> byAgent = cordonedByAgent();
        Map<String, List<NodeRow>> pools = new TreeMap<>();
        for (Node n : client.nodes().list().getItems()) {
            Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
            String resource = knowledge.acceleratorResources().stream()
                    .filter(r -> n.getStatus() != null && n.getStatus().getCapacity() != null && n.getStatus().getCapacity().containsKey(r))
                    .findFirst().orElse(null);
            String pool = knowledge.poolOf(labels);
            if (resource == null && pool == null) {
                continue;
            }
            String name = n.getMetadata().getName();
            boolean cordoned = n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
            boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
            String[] agent = cordoned ? byAgent.get(name) : null;
            String accelerator = labels.getOrDefault("nvidia.com/gpu.product",
                    labels.getOrDefault("cloud.google.com/gke-tpu-accelerator", resource == null ? "" : resource));
            pools.computeIfAbsent(pool == null ? "(no pool label)" : pool, k -> new ArrayList<>())
                    .add(new NodeRow(name, accelerator, amount(n, resource, true), amount(n, resource, false), ready, cordoned,
                            agent == null ? (cordoned ? "someone else" : null) : "acceltriage", agent == null ? null : agent[0]));
        }
        List<Pool> out = new ArrayList<>();
        pools.forEach((name, nodes) -> {
            nodes.sort(java.util.Comparator.comparing(NodeRow::name));
            out.add(new Pool(name, nodes, nodes.stream().filter(NodeRow::cordoned).count(),
                    nodes.stream().filter(r -> "acceltriage".equals(r.cordonedBy())).count()));
        });
        return out;
    }

    /** Node → [incident] of the agent's latest successful cordon of it. */
    private Map<String, String[]> cordonedByAgent() {
        return database.read(c -> {
            Map<String, String[]> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "select target, incident_id from actions where kind = 'cordon-node' and status = 'SUCCEEDED' order by updated_at");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), new String[] {rs.getString(2)});
                }
            }
            return out;
        });
    }

    private static int amount(Node n, String resource, boolean capacity) {
        if (resource == null) return 0;
        Map<String, Quantity> q = capacity ? n.getStatus().getCapacity() : n.getStatus().getAllocatable();
        Quantity v = q == null ? null : q.get(resource);
        try {
            return v == null ? 0 : Integer.parseInt(v.getAmount());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
