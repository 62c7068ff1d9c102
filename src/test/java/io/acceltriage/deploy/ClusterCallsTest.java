package io.acceltriage.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.acceltriage.action.ActionRecord;
import io.acceltriage.action.ActionStatus;
import io.acceltriage.action.Executor;
import io.acceltriage.action.LeaseLeadership;
import io.acceltriage.action.Leadership;
import io.acceltriage.action.TelemetryGpus;
import io.acceltriage.action.Timing;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.deploy.DeployManifestsTest.Access;
import io.acceltriage.evidence.ExpositionParser;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Policy;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.RequestGate;
import io.acceltriage.sandbox.SimulatedCluster;
import io.acceltriage.scenario.Replay;
import io.acceltriage.scenario.ScenarioLoader;
import io.acceltriage.store.Database;
import io.acceltriage.triage.ResponderFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The RBAC in {@code deploy/} reviewed against what the code really asks of the API server, not against a list
 * someone keeps: every request the responder makes while replaying the whole scenario corpus (evidence,
 * correlation, policy), every request each mitigation makes while it runs and is undone, and leader election, are
 * recorded as (API group, resource, verb) and must each be granted by the rendered manifests — a call the RBAC does
 * not grant is a mitigation that fails with 403 in production (a protocol's own API, medik8s, through the optional
 * piece an operator adds for it). The namespaced overlay's ClusterRole must still grant every read replay makes
 * but logs, which its Roles grant per namespace.
 */
@QuarkusTest
class ClusterCallsTest {

    static final Timing FAST = new Timing(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofSeconds(5), Duration.ofMillis(50));

    @Inject
    ResponderFactory factory;

    @Inject
    Policy policy;

    /** A store of its own: the actions it runs here must not put the shared store's nodes in cooldown for other tests. */
    final Database database = io.acceltriage.store.TestDatabases.h2();

    final AuditLog audit = io.acceltriage.audit.TestAudit.on(database);

    /** What was asked, and by which part ("replay", or a mitigation's name), for the failure message. */
    final Map<Access, String> calls = new ConcurrentHashMap<>();

    @Test
    void everyCallTheResponderAndEachMitigationMakeIsGrantedByTheShippedRbac() throws Exception {
        recordReplayOfTheCorpus();
        recordEveryMitigation();
        assertTrue(calls.keySet().stream().anyMatch(a -> a.resource().equals("pods/eviction")),
                "the recording saw the mitigations' writes: " + calls.keySet());

        // The optional pieces an operator adds for a repair protocol (optional/medik8s) grant that protocol's API only.
        Set<Access> optional = DeployManifestsTest.accessTable();
        for (String piece : List.of("optional/medik8s", "optional/clusterapi", "optional/karpenter")) {
            optional.addAll(granted(DeployManifestsTest.render(piece)));
        }
        assertTrue(optional.stream().allMatch(a -> Set.of("remediation.medik8s.io", "cluster.x-k8s.io", "karpenter.sh").contains(a.apiGroup())),
                "optional pieces: " + optional);
        for (String overlay : List.of("production", "sandbox")) {
            Set<Access> granted = granted(DeployManifestsTest.render(overlay));
            granted.addAll(optional);
            assertGranted(calls, granted, overlay);
        }
        // Confined to some namespaces, acceltriage still reads what it needs to judge a node, cluster-wide.
        Map<Access, String> reads = new ConcurrentHashMap<>();
        calls.forEach((a, by) -> {
            if (by.equals("replay") && !a.resource().equals("pods/log")) reads.put(a, by);
        });
        // The planner's read of a clusterapi pool's MachineHealthCheck comes with the protocol's optional piece.
        Set<Access> namespaced = granted(DeployManifestsTest.render("namespaced").stream()
                .filter(d -> d.path("kind").asText().equals("ClusterRole")).collect(Collectors.toList()));
        namespaced.addAll(optional);
        assertGranted(reads, namespaced, "namespaced ClusterRole");
    }

    private static Set<Access> granted(List<JsonNode> docs) {
        Set<Access> granted = DeployManifestsTest.accessTable();
        DeployManifestsTest.find(docs, "ClusterRole").forEach(r -> granted.addAll(DeployManifestsTest.grantedBy(r.path("rules"))));
        DeployManifestsTest.find(docs, "Role").forEach(r -> granted.addAll(DeployManifestsTest.grantedBy(r.path("rules"))));
        return granted;
    }

    private static void assertGranted(Map<Access, String> calls, Set<Access> granted, String what) {
        Map<Access, String> missing = new TreeMap<>(java.util.Comparator.comparing(Access::toString));
        calls.forEach((a, by) -> {
            if (!granted.contains(a)) missing.put(a, by);
        });
        assertTrue(missing.isEmpty(), what + ": the RBAC does not grant what the code calls (call ← first caller): "
                + missing.entrySet().stream().map(e -> e.getKey() + " ← " + e.getValue()).collect(Collectors.joining("; ")));
    }

    private void recordReplayOfTheCorpus() throws Exception {
        Replay replay = new Replay(factory, policy).observing(recorder("replay"));
        for (Path f : ScenarioLoader.expand(List.of(Path.of("src/test/resources/scenarios")))) {
            replay.replay(f, ScenarioLoader.load(f), null);
        }
    }

    private void recordEveryMitigation() {
        try (SimulatedCluster cluster = SimulatedCluster.start()) {
            Recorder by = new Recorder();
            KubernetesClient client = new KubernetesClientBuilder()
                    .withConfig(new ConfigBuilder(Config.empty()).withMasterUrl(cluster.apiServer().url()).withNamespace("default")
                            .withHttp2Disable(true).withRequestRetryBackoffLimit(0).build())
                    .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("rbac-review", by))
                    .build();
            try (client) {
                Policy medik8s = Policy.parse("m.yaml", """
                        apiVersion: acceltriage.io/v1
                        kind: Policy
                        repair:
                          protocol: medik8s
                          remediation: {apiVersion: remediation.medik8s.io/v1alpha1, kind: SelfNodeRemediation, namespace: medik8s}
                        """.getBytes(StandardCharsets.UTF_8));
                Executor executor = executor(client, cluster, null);
                Executor medik8sExecutor = executor(client, cluster, medik8s);

                by.now = "cordon-node";
                ActionRecord cordon = run(executor, ActionKind.CORDON_NODE, "gpu-h100-02");
                by.now = "undo";
                executor.undo(cordon.id(), "alice");
                by.now = "restart-pod";
                String vllm = cluster.client().pods().inNamespace("serve").list().getItems().stream()
                        .filter(p -> p.getMetadata().getName().startsWith("vllm-llama")).findFirst().orElseThrow().getMetadata().getName();
                run(executor, ActionKind.RESTART_POD, "serve/" + vllm);
                by.now = "drain-node";
                run(executor, ActionKind.DRAIN_NODE, "gpu-a100-03");
                by.now = "shift-replicas";
                run(executor, ActionKind.CORDON_NODE, "gpu-a100-05");
                run(executor, ActionKind.SHIFT_REPLICAS, "serve/vllm-llama");
                by.now = "restart-group";
                run(executor, ActionKind.RESTART_GROUP, "ml/llm-pretrain");
                by.now = "restart-node-agent";
                run(executor, ActionKind.RESTART_NODE_AGENT, "gpu-h100-03");
                by.now = "reset-gpu";
                cluster.inject(Fault.xid("gpu-a100-06", 0, 48));
                assertEquals(ActionStatus.SUCCEEDED, run(executor, ActionKind.RESET_GPU, "gpu-a100-06/0").status());
                by.now = "reset-gpu (job, DRA)";
                Policy byJob = Policy.parse("j.yaml", """
                        apiVersion: acceltriage.io/v1
                        kind: Policy
                        repair: {resetMethod: job, resetTimeout: 10s}
                        """.getBytes(StandardCharsets.UTF_8));
                cluster.apiServer().apply(Map.of("apiVersion", "resource.k8s.io/v1beta1", "kind", "ResourceSlice",
                        "metadata", Map.of("name", "gpu-a100-10-gpu.nvidia.com"),
                        "spec", Map.of("driver", "gpu.nvidia.com", "nodeName", "gpu-a100-10", "pool", Map.of("name", "gpu-a100-10"),
                                "devices", List.of(Map.of("name", "gpu-0")))));
                cluster.inject(Fault.xid("gpu-a100-10", 0, 48));
                ActionRecord jobReset = run(executor(client, cluster, byJob), ActionKind.RESET_GPU, "gpu-a100-10/0");
                assertEquals(ActionStatus.SUCCEEDED, jobReset.status(), jobReset.detail());
                assertTrue(jobReset.detail().contains("removed the DeviceTaintRule"), jobReset.detail());
                by.now = "reboot-node";
                run(executor, ActionKind.CORDON_NODE, "gpu-h100-06");
                run(executor, ActionKind.REPAIR_NODE, "gpu-h100-06");
                until(() -> "complete".equals(
                        cluster.client().nodes().withName("gpu-h100-06").get().getMetadata().getLabels().get("acceltriage.io/repair")));
                by.now = "validate-node";
                assertEquals(ActionStatus.SUCCEEDED, run(executor, ActionKind.VALIDATE_NODE, "gpu-h100-06").status());
                by.now = "return-node";
                ActionRecord back = run(executor, ActionKind.RETURN_NODE, "gpu-h100-06");
                executor.undo(back.id(), "alice");
                by.now = "repair-node (medik8s)";
                run(medik8sExecutor, ActionKind.CORDON_NODE, "gpu-h100-07");
                run(medik8sExecutor, ActionKind.REPAIR_NODE, "gpu-h100-07");
                by.now = "return-node (medik8s)";
                var remediations = cluster.client().genericKubernetesResources(new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext
                        .Builder().withGroup("remediation.medik8s.io").withVersion("v1alpha1").withKind("SelfNodeRemediation")
                        .withPlural("selfnoderemediations").withNamespaced(true).build()).inNamespace("medik8s");
                assertTrue(remediations.withName("gpu-h100-07").get() != null, "repair-node created the node's remediation");
                remediations.withName("gpu-h100-07").edit(o -> {
                    o.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Succeeded", "status", "True"))));
                    return o;
                });
                // a merge patch carries no resourceVersion: the simulated node agents write to the node at the same time
                cluster.client().nodes().withName("gpu-h100-07").patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                        io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"acceltriage.io/gpu-health\":\"passed\"}}}");
                run(medik8sExecutor, ActionKind.RETURN_NODE, "gpu-h100-07");

                Policy pools = Policy.parse("p.yaml", """
                        apiVersion: acceltriage.io/v1
                        kind: Policy
                        repair:
                          pools: {a100-serve: clusterapi, h100-train: karpenter}
                          replaceTimeout: 10s
                        """.getBytes(StandardCharsets.UTF_8));
                Executor poolsExecutor = executor(client, cluster, pools);
                by.now = "replace-node (clusterapi)";
                assertEquals(ActionStatus.SUCCEEDED, run(poolsExecutor, ActionKind.REPLACE_NODE, "gpu-a100-08").status());
                by.now = "replace-node (karpenter)";
                assertEquals(ActionStatus.SUCCEEDED, run(poolsExecutor, ActionKind.REPLACE_NODE, "gpu-h100-09").status());
                by.now = "reboot-node (clusterapi)";
                // the pool's MachineHealthCheck remediates through an external remediation (a reboot), set up unrecorded
                cluster.client().genericKubernetesResources("cluster.x-k8s.io/v1beta1", "MachineHealthCheck").inNamespace("capi-fleet")
                        .withName("a100-serve-unhealthy").edit(m -> {
                            @SuppressWarnings("unchecked")
                            Map<String, Object> spec = (Map<String, Object>) m.getAdditionalProperties().get("spec");
                            spec.put("remediationTemplate", Map.of("kind", "Metal3RemediationTemplate", "name", "reboot"));
                            return m;
                        });
                assertEquals(ActionStatus.SUCCEEDED, run(poolsExecutor, ActionKind.REPAIR_NODE, "gpu-a100-09").status());
                by.now = "return-node (clusterapi)";
                // return-node reads the Machine to clear a request its remediation left (patch is reboot-node's, above)
                String machine = cluster.client().nodes().withName("gpu-a100-09").get().getMetadata().getAnnotations().get("cluster.x-k8s.io/machine");
                var machines = cluster.client().genericKubernetesResources("cluster.x-k8s.io/v1beta1", "Machine").inNamespace("capi-fleet");
                until(() -> !machines.withName(machine).get().getMetadata().getAnnotations().containsKey("cluster.x-k8s.io/remediate-machine"));
                cluster.client().nodes().withName("gpu-a100-09").patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                        io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                        "{\"metadata\":{\"labels\":{\"acceltriage.io/gpu-health\":\"passed\"}}}");
                run(poolsExecutor, ActionKind.VALIDATE_NODE, "gpu-a100-09");
                ActionRecord returned = run(poolsExecutor, ActionKind.RETURN_NODE, "gpu-a100-09");
                assertEquals(ActionStatus.SUCCEEDED, returned.status(), returned.detail());

                by.now = "pause-rollout";
                cluster.inject(new Fault("device-plugin-rollout", "gpu-h100-08", null, null, null));
                ActionRecord paused = run(executor, ActionKind.PAUSE_ROLLOUT, "gpu-operator/nvidia-device-plugin-daemonset");
                assertEquals(ActionStatus.SUCCEEDED, paused.status(), paused.detail());
                executor.undo(paused.id(), "alice");

                by.now = "leader election";
                try (LeaseLeadership lease = new LeaseLeadership(client, "acceltriage", "replica-a", Duration.ofSeconds(15))) {
                    until(lease::isLeader);
                }
            }
        }
    }

    private static void until(java.util.function.BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Executor executor(KubernetesClient client, SimulatedCluster cluster, Policy p) {
        MetricsSource exporter = node -> new NodeSamples(ExpositionParser.parse(cluster.exporterText(node)), List.of());
        return new Executor(client, database, audit, Leadership.ALWAYS, FAST, () -> p, new TelemetryGpus(exporter));
    }

    private static ActionRecord run(Executor executor, ActionKind kind, String target) {
        return executor.carryOut("inc-rbac-" + UUID.randomUUID().toString().substring(0, 8),
                new Proposal(kind, target, "rbac review", List.of(), "rbac review"),
                new Verdict(Decision.ALLOW, "test", List.of("test"), false));
    }

    /** A server-side recorder: each scenario's API server sees only the responder's requests once its world is seeded. */
    private RequestGate recorder(String by) {
        return new RequestGate() {
            @Override
            public boolean admit(String method, String path) {
                access(method, path).ifPresent(a -> calls.putIfAbsent(a, by));
                return true;
            }
        };
    }

    /** A client-side recorder: the simulated node agents share the server, so only this client's requests count. */
    final class Recorder implements Interceptor {
        volatile String now = "";

        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            String path = request.uri().getRawPath() + (request.uri().getRawQuery() == null ? "" : "?" + request.uri().getRawQuery());
            access(request.method(), path).ifPresent(a -> calls.putIfAbsent(a, now));
        }
    }

    /**
     * The RBAC terms of one request: {@code /api/v1/namespaces/ns/pods/p/eviction} POST is core
     * {@code pods/eviction create}. Discovery ({@code /api}, {@code /apis/group/version}) is granted to every
     * authenticated client and left out.
     */
    static java.util.Optional<Access> access(String method, String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
        List<String> parts = List.of(path.replaceAll("^/+|/+$", "").split("/"));
        String group;
        int rest;
        if (parts.size() >= 2 && parts.get(0).equals("api")) {
            group = "";
            rest = 2;
        } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
            group = parts.get(1);
            rest = 3;
        } else {
            return java.util.Optional.empty();
        }
        List<String> r = parts.subList(rest, parts.size());
        if (r.size() >= 3 && r.get(0).equals("namespaces")) {
            r = r.subList(2, r.size());
        } else if (r.size() == 2 && r.get(0).equals("namespaces")) {
            r = List.of("namespaces", r.get(1));
        }
        if (r.isEmpty()) {
            return java.util.Optional.empty();
        }
        String resource = r.get(0) + (r.size() >= 3 ? "/" + r.get(2) : "");
        boolean named = r.size() >= 2;
        String verb = switch (method) {
            case "GET" -> named ? "get" : query.contains("watch=true") || query.contains("watch=1") ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method.toLowerCase(java.util.Locale.ROOT);
        };
        return java.util.Optional.of(new Access(group, resource, verb));
    }
}
