package io.acceltriage.web;

import io.acceltriage.http.Redirects;
import io.acceltriage.access.CurrentUser;
import io.acceltriage.action.Decisions;
import io.acceltriage.action.Executor;
import io.acceltriage.cluster.ClusterUnreadable;
import io.acceltriage.cluster.Nodes;
import io.acceltriage.history.FaultHistory;
import io.acceltriage.history.RepeatOffender;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.PolicySource;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.policy.CircuitBreakerControl;
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
import java.util.ArrayList;
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

    /** {@code repeatOffenders}: the node's GPUs the policy's repeat-offender rule now counts out, e.g. "GPU 1: 5 fatal XIDs"; empty when none. */
    record NodeRow(String name, String accelerator, int capacity, int allocatable, boolean ready, boolean cordoned,
            String cordonedBy, String incident, String openIncident, List<String> repeatOffenders) {

        /** The one colour a node gets, worst first: the legend of the page names each. */
        public String health() {
            if (!ready) return "notready";
            if (capacity == 0) return "noplugin";
            if (allocatable < capacity) return "deadgpus";
            if (cordoned) return "cordoned";
            return "healthy";
        }
    }

    record Pool(String name, List<NodeRow> nodes, long cordoned, long byAgent) {}

    /** How the page names the repeat-offender rule it applies: "5 fatal XIDs in 24 h". */
    record RepeatRule(int fatalXids, String window) {}

    /** The breaker as the page shows it; {@code known} false when no breaker is built in. */
    record Breaker(boolean known, boolean tripped) {}

    @CheckedTemplate(requireTypeSafeExpressions = false)
    static class Templates {
        static native TemplateInstance fleet(List<Pool> pools, Breaker breaker, RepeatRule repeat, String error, String notice);
    }

    private final Nodes nodes;
    private final Executor actions;
    private final Instance<CircuitBreakerControl> breaker;
    private final CurrentUser who;
    private final Decisions decisions;
    private final NodeAgents knowledge = NodeAgents.load();

    private final IncidentQueries incidents;
    private final FaultHistory history;
    private final PolicySource policy;

    FleetPage(Nodes nodes, Executor actions, Instance<CircuitBreakerControl> breaker, CurrentUser who, Decisions decisions,
            IncidentQueries incidents, FaultHistory history, PolicySource policy) {
        this.incidents = incidents;
        this.history = history;
        this.policy = policy;
        this.decisions = decisions;
        this.nodes = nodes;
        this.actions = actions;
        this.breaker = breaker;
        this.who = who;
    }

    @GET
    public TemplateInstance fleet(@QueryParam("notice") String notice) {
        Breaker b = breaker.isResolvable() ? new Breaker(true, breaker.get().tripped()) : new Breaker(false, false);
        Policy p = policy.current();
        RepeatRule rule = new RepeatRule(p.fatalXidsPerGpu(), p.xidWindow().toHours() + " h");
        try {
            return Templates.fleet(pools(p), b, rule, null, notice);
        } catch (ClusterUnreadable e) {
            return Templates.fleet(List.of(), b, rule, "The Kubernetes API did not answer (" + e.getMessage()
                    + "); the fleet cannot be shown until it does.", notice);
        }
    }

    @POST
    @Path("breaker/reset")
    public Response reset() {
        String said = decisions.resetBreaker(who.getName()).message();
        return Redirects.seeOther("/fleet?notice=" + encode(said.substring(0, 1).toUpperCase() + said.substring(1) + "."))
                .build();
    }

    private List<Pool> pools(Policy p) {
        Map<String, String> byAgent = actions.cordonedNodes();
        // the GPUs the repeat-offender rule counts out now, as the policy counts them (its threshold and window)
        Map<String, List<String>> repeat = new java.util.HashMap<>();
        for (RepeatOffender o : history.repeatOffenders(java.time.Instant.now().minus(p.xidWindow()), p.fatalXidsPerGpu())) {
            long xids = o.faults().stream().map(f -> f.incidentId() + "|" + f.xid()).distinct().count();
            repeat.computeIfAbsent(o.node(), k -> new ArrayList<>()).add("GPU " + o.gpu() + ": " + xids + " fatal XIDs");
        }
        // the newest open incident of each node, linked from its tile
        Map<String, String> open = new java.util.HashMap<>();
        for (IncidentView i : incidents.list(IncidentQueries.filter(null, null, null, null, null, null, "200"))) {
            if (i.node() != null && !"resolved".equals(i.state()) && !"no_fault".equals(i.state())) open.putIfAbsent(i.node(), i.id());
        }
        Map<String, List<NodeRow>> pools = new TreeMap<>();
        for (Nodes.NodeInfo n : nodes.list()) {
            Map<String, String> labels = n.labels();
            String resource = knowledge.acceleratorResources().stream().filter(r -> n.capacity().containsKey(r)).findFirst().orElse(null);
            String pool = knowledge.poolOf(labels);
            if (resource == null && pool == null) {
                continue;
            }
            String incident = n.cordoned() ? byAgent.get(n.name()) : null;
            String accelerator = labels.getOrDefault("nvidia.com/gpu.product",
                    labels.getOrDefault("cloud.google.com/gke-tpu-accelerator", resource == null ? "" : resource));
            pools.computeIfAbsent(pool == null ? "(no pool label)" : pool, k -> new ArrayList<>())
                    .add(new NodeRow(n.name(), accelerator, n.amount(resource, true), n.amount(resource, false), "True".equals(n.ready()),
                            n.cordoned(), incident == null ? (n.cordoned() ? "someone else" : null) : "acceltriage", incident,
                            open.get(n.name()), repeat.getOrDefault(n.name(), List.of())));
        }
        List<Pool> out = new ArrayList<>();
        pools.forEach((name, rows) -> {
            rows.sort(java.util.Comparator.comparing(NodeRow::name));
            out.add(new Pool(name, rows, rows.stream().filter(NodeRow::cordoned).count(),
                    rows.stream().filter(r -> "acceltriage".equals(r.cordonedBy())).count()));
        });
        return out;
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
