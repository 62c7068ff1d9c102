package io.acceltriage.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Checks the files under {@code deploy/} with the real tools operators use on them: {@code kubectl
 * kustomize}, {@code promtool} and {@code amtool}. A missing tool fails the test with the package to
 * install; nothing is skipped.
 */
class DeployManifestsTest {

    /**
     * Every Kubernetes API call acceltriage makes, as (API group, resource, verb). It mirrors what the
     * code calls (evidence collectors, executor and mitigations, leader election excluded: that is a
     * namespaced Role). The rendered ClusterRole must grant exactly these: a missing one breaks a
     * feature in production, an extra one is privilege nobody uses. Change both together.
     */
    private static final Set<Access> REQUIRED_ACCESS = accessTable(
            // API group          resource                 verbs                   used by
            row("",                "nodes",                 "get list watch patch"), // evidence; cordon-node
            row("",                "pods",                  "get list watch delete"), // evidence; restart-pod, restart-group, restart-node-agent
            row("",                "pods/log",              "get"),                  // log evidence
            row("",                "events",                "get list watch"),       // event evidence
            row("",                "pods/eviction",         "create"),               // drain-node, shift-replicas
            row("apps",            "deployments",           "get list watch"),       // owner and serving floor
            row("apps",            "replicasets",           "get list watch"),       // pod -> deployment
            row("apps",            "statefulsets",          "get list watch"),       // gangs of workers, serving
            row("apps",            "daemonsets",            "get list watch patch"), // node agents; pause-rollout (updateStrategy)
            row("apps",            "controllerrevisions",   "get list watch"),       // the revision each node agent runs
            row("apps",            "deployments/scale",     "get update"),           // shift-replicas (scale subresource)
            row("apps",            "statefulsets/scale",    "get update"),           // shift-replicas (scale subresource)
            row("policy",          "poddisruptionbudgets",  "get list watch"),       // serving floor, drains
            row("batch",           "jobs",                  "get list watch"),       // training jobs
            row("jobset.x-k8s.io", "jobsets",               "get list watch"),       // restart-group budget (maxRestarts)
            row("leaderworkerset.x-k8s.io", "leaderworkersets", "get list watch"), // gang owner chain
            row("kubeflow.org",    "pytorchjobs",           "get list watch"),       // gang owner chain
            row("resource.k8s.io", "resourceslices",        "get list watch"),       // DRA device taints
            row("resource.k8s.io", "devicetaintrules",      "get create delete"));   // reset-gpu: the one DRA device being reset

    /** Leader election, granted only by a Role in acceltriage's own namespace. */
    private static final Set<Access> LEADER_ELECTION_ACCESS =
            accessTable(row("coordination.k8s.io", "leases", "get create update patch"));

    /** validate-node's DCGM diagnostics Job, granted only by a Role in acceltriage's own namespace. */
    private static final Set<Access> VALIDATION_ACCESS = accessTable(row("batch", "jobs", "get list create delete"));

    private static final String NAMESPACE = "acceltriage";
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);
    private static final Map<String, String> DEBIAN_PACKAGE = Map.of(
            "kubectl", "kubernetes-client (or kubectl from https://dl.k8s.io)",
            "promtool", "prometheus",
            "amtool", "prometheus-alertmanager");
    private static final Pattern ALERT_NAME = Pattern.compile("(Gpu|Dcgm)[A-Z][A-Za-z]+");
    private static final List<String> SERVICE_METRICS = List.of(
            "acceltriage_alerts_received_total",
            "acceltriage_incidents_total",
            "acceltriage_triage_duration_seconds",
            "acceltriage_decision_latency_seconds",
            "acceltriage_inbox_pending_alerts",
            "acceltriage_actions_total",
            "acceltriage_approvals_total",
            "acceltriage_circuit_breaker_tripped",
            "acceltriage_model_calls_total",
            "acceltriage_model_tokens_total",
            "acceltriage_evidence_errors_total");

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = repositoryRoot();
    private static final Path RULES = ROOT.resolve("deploy/prometheus/acceltriage-gpu.rules.yaml");
    private static final Path OBJECTIVE_RULES = ROOT.resolve("deploy/prometheus/acceltriage-objectives.rules.yaml");
    private static final Path PROMETHEUS_RULE = ROOT.resolve("deploy/prometheus/prometheusrule.yaml");
    private static final Path RULE_TESTS = ROOT.resolve("deploy/prometheus/tests");
    private static final Path ALERTMANAGER = ROOT.resolve("deploy/alertmanager/alertmanager.yaml");
    private static final Path ALERTMANAGER_TEST = ROOT.resolve("deploy/alertmanager/alertmanager.test.yaml");
    private static final Path ALERTMANAGER_CONFIG = ROOT.resolve("deploy/alertmanager/alertmanagerconfig.yaml");
    private static final Path DASHBOARD = ROOT.resolve("deploy/grafana/acceltriage-dashboard.json");

    private static final Map<String, List<JsonNode>> RENDERED = new HashMap<>();

    // ---------------------------------------------------------------- Kubernetes manifests

    @Test
    void productionRunsTwoHardenedReplicasInClusterWithPostgres() {
        List<JsonNode> docs = render("production");
        JsonNode deployment = only(docs, "Deployment", "acceltriage");
        assertEquals(2, deployment.at("/spec/replicas").asInt(), "production replicas");
        assertHardenedPod(deployment);

        Map<String, String> env = env(container(deployment));
        assertEquals("in-cluster", env.get("ACCELTRIAGE_CLUSTER_MODE"), "production cluster mode; env " + env);
        assertTrue(env.getOrDefault("ACCELTRIAGE_DB_URL", "").startsWith("jdbc:postgresql://"),
                "production keeps its state in PostgreSQL; env " + env);

        JsonNode pdb = only(docs, "PodDisruptionBudget", "acceltriage");
        assertEquals(1, pdb.at("/spec/minAvailable").asInt(), "PodDisruptionBudget minAvailable");
        assertEquals(deployment.at("/spec/selector/matchLabels"), pdb.at("/spec/selector/matchLabels"),
                "the PodDisruptionBudget selects the Deployment's pods");
    }

    @Test
    void sandboxRunsOneReplicaInSandboxMode() {
        List<JsonNode> docs = render("sandbox");
        JsonNode deployment = only(docs, "Deployment", "acceltriage");
        assertEquals(1, deployment.at("/spec/replicas").asInt(), "sandbox replicas");
        assertHardenedPod(deployment);
        assertEquals("sandbox", env(container(deployment)).get("ACCELTRIAGE_CLUSTER_MODE"), "sandbox cluster mode");
        assertFalse(find(docs, "PodDisruptionBudget").findAny().isPresent(), "a single replica has no PodDisruptionBudget");
    }

    @Test
    void everyOverlayServesHttpOn8080AndReadsItsSecretsOptionally() {
        for (String overlay : List.of("production", "sandbox")) {
            List<JsonNode> docs = render(overlay);
            JsonNode service = only(docs, "Service", "acceltriage");
            JsonNode port = service.at("/spec/ports/0");
            assertEquals("http", port.path("name").asText(), overlay + ": service port name");
            assertEquals(8080, port.path("port").asInt(), overlay + ": service port");
            JsonNode deployment = only(docs, "Deployment", "acceltriage");
            assertEquals(deployment.at("/spec/template/metadata/labels/app.kubernetes.io~1name"),
                    service.at("/spec/selector/app.kubernetes.io~1name"), overlay + ": service selects the pods");

            JsonNode c = container(deployment);
            assertEquals("ghcr.io/acceltriage/acceltriage:0.1.0", c.path("image").asText(), overlay + ": image");
            assertEquals(builtImage(), c.path("image").asText(), overlay + ": the image the build makes (quarkus.container-image.*)");
            assertEquals(8080, c.at("/ports/0/containerPort").asInt(), overlay + ": container port");
            JsonNode secretRef = stream(c.path("envFrom")).map(e -> e.path("secretRef"))
                    .filter(r -> r.path("name").asText().equals("acceltriage-secrets")).findFirst()
                    .orElseThrow(() -> new AssertionError(overlay + ": envFrom the acceltriage-secrets Secret"));
            assertTrue(secretRef.path("optional").asBoolean(), overlay + ": the Secret is optional");
            assertFalse(find(docs, "Secret").findAny().isPresent(),
                    overlay + ": no Secret is rendered (secret.example.yaml is a template only)");

            Set<String> configMaps = find(docs, "ConfigMap").map(m -> m.at("/metadata/name").asText())
                    .collect(Collectors.toSet());
            for (JsonNode volume : deployment.at("/spec/template/spec/volumes")) {
                if (volume.has("configMap")) {
                    assertTrue(configMaps.contains(volume.at("/configMap/name").asText()),
                            overlay + ": volume " + volume + " refers to a rendered ConfigMap " + configMaps);
                }
            }
            assertTrue(configMaps.stream().anyMatch(n -> n.startsWith("acceltriage-policies")), overlay + ": policies ConfigMap");
            assertTrue(configMaps.stream().anyMatch(n -> n.startsWith("acceltriage-tools")), overlay + ": tools ConfigMap");
            for (JsonNode doc : docs) {
                String kind = doc.path("kind").asText();
                if (!Set.of("Namespace", "ClusterRole", "ClusterRoleBinding").contains(kind)) {
                    assertEquals(NAMESPACE, doc.at("/metadata/namespace").asText(),
                            overlay + ": namespace of " + kind + " " + doc.at("/metadata/name").asText());
                }
            }
        }
    }

    @Test
    void clusterRoleGrantsExactlyWhatTheCodeCallsAndNoSecretsOrWildcards() {
        for (String overlay : List.of("production", "sandbox")) {
            List<JsonNode> docs = render(overlay);
            List<JsonNode> clusterRoles = find(docs, "ClusterRole").collect(Collectors.toList());
            assertEquals(1, clusterRoles.size(), overlay + ": one ClusterRole");
            JsonNode rules = clusterRoles.get(0).path("rules");
            for (JsonNode rule : rules) {
                assertFalse(rule.has("nonResourceURLs"), overlay + ": no non-resource URLs: " + rule);
                assertFalse(rule.has("resourceNames") && rule.path("resourceNames").isEmpty(),
                        overlay + ": empty resourceNames: " + rule);
                for (String field : List.of("apiGroups", "resources", "verbs")) {
                    for (JsonNode value : rule.path(field)) {
                        assertFalse(value.asText().contains("*"), overlay + ": wildcard in " + field + ": " + rule);
                        if (field.equals("resources")) {
                            assertFalse(value.asText().equals("secrets") || value.asText().startsWith("secrets/"),
                                    overlay + ": the ClusterRole must not grant secrets: " + rule);
                        }
                    }
                }
            }
            assertAccessEquals(REQUIRED_ACCESS, grantedBy(rules), overlay + ": ClusterRole acceltriage");

            JsonNode binding = only(docs, "ClusterRoleBinding", "acceltriage");
            assertEquals("acceltriage", binding.at("/roleRef/name").asText(), overlay + ": ClusterRoleBinding role");
            assertBindsServiceAccount(binding, overlay + ": ClusterRoleBinding");
        }
    }

    @Test
    void leasesAreGrantedOnlyByARoleInTheServiceNamespace() {
        for (String overlay : List.of("production", "sandbox")) {
            List<JsonNode> docs = render(overlay);
            for (JsonNode clusterRole : find(docs, "ClusterRole").collect(Collectors.toList())) {
                assertFalse(grantedBy(clusterRole.path("rules")).stream().anyMatch(a -> a.resource().equals("leases")),
                        overlay + ": no ClusterRole grants leases");
            }
            List<JsonNode> roles = find(docs, "Role").filter(r -> r.at("/metadata/namespace").asText().equals(NAMESPACE))
                    .collect(Collectors.toList());
            assertEquals(List.of("acceltriage-leader-election", "acceltriage-validation"),
                    roles.stream().map(r -> r.at("/metadata/name").asText()).sorted().collect(Collectors.toList()),
                    overlay + ": the Roles in acceltriage's own namespace");
            assertAccessEquals(VALIDATION_ACCESS, grantedBy(roles.stream().filter(r -> r.at("/metadata/name").asText()
                    .equals("acceltriage-validation")).findFirst().orElseThrow().path("rules")), overlay + ": Role acceltriage-validation");
            JsonNode role = roles.stream().filter(r -> r.at("/metadata/name").asText().equals("acceltriage-leader-election"))
                    .findFirst().orElseThrow();
            assertEquals(NAMESPACE, role.at("/metadata/namespace").asText(), overlay + ": the Role's namespace");
            assertAccessEquals(LEADER_ELECTION_ACCESS, grantedBy(role.path("rules")), overlay + ": Role " + role.at("/metadata/name").asText());

            JsonNode binding = find(docs, "RoleBinding")
                    .filter(b -> b.at("/roleRef/name").asText().equals(role.at("/metadata/name").asText()))
                    .findFirst().orElseThrow(() -> new AssertionError(overlay + ": a RoleBinding for the leader-election Role"));
            assertEquals("Role", binding.at("/roleRef/kind").asText(), overlay + ": RoleBinding refers to a Role");
            assertEquals(NAMESPACE, binding.at("/metadata/namespace").asText(), overlay + ": the RoleBinding's namespace");
            assertBindsServiceAccount(binding, overlay + ": RoleBinding");
        }
    }

    @Test
    void productionAdmitsOnlyAlertmanagerPrometheusAndTheIngressAndReachesOnlyWhatTheServiceCalls() {
        List<JsonNode> docs = render("production");
        JsonNode policy = only(docs, "NetworkPolicy", "acceltriage");
        JsonNode deployment = only(docs, "Deployment", "acceltriage");
        policy.at("/spec/podSelector/matchLabels").fields().forEachRemaining(label -> assertEquals(label.getValue().asText(),
                deployment.at("/spec/template/metadata/labels").path(label.getKey()).asText(), "the policy selects acceltriage's pods"));
        assertEquals(Set.of("Ingress", "Egress"), stream(policy.at("/spec/policyTypes")).map(JsonNode::asText).collect(Collectors.toSet()));
        for (JsonNode rule : policy.at("/spec/ingress")) {
            assertFalse(rule.path("from").isEmpty(), "every ingress rule names who may connect: " + rule);
            assertEquals(List.of("8080"), stream(rule.path("ports")).map(p -> p.path("port").asText()).collect(Collectors.toList()),
                    "only the service port: " + rule);
        }
        Set<String> egressPorts = new TreeSet<>();
        for (JsonNode rule : policy.at("/spec/egress")) {
            assertFalse(rule.path("ports").isEmpty(), "every egress rule names its ports: " + rule);
            rule.path("ports").forEach(p -> egressPorts.add(p.path("port").asText() + "/" + p.path("protocol").asText()));
        }
        // DNS, the API server, PostgreSQL, dcgm-exporter and AMD's exporter, Prometheus: what the code calls.
        assertEquals(new TreeSet<>(List.of("53/UDP", "53/TCP", "443/TCP", "6443/TCP", "5432/TCP", "9400/TCP", "5000/TCP", "9090/TCP")),
                egressPorts);
        int port = container(deployment).path("ports").path(0).path("containerPort").asInt();
        assertEquals(8080, port, "the port the ingress rule admits is the one the container serves");
    }

    @Test
    void theNamespacedOverlayActsAndReadsLogsOnlyInTheNamespacesItsPolicyNames() throws IOException {
        List<JsonNode> docs = render("namespaced");
        JsonNode clusterRole = only(docs, "ClusterRole", "acceltriage");
        for (Access a : grantedBy(clusterRole.path("rules"))) {
            assertTrue(Set.of("get", "list", "watch").contains(a.verb()) && !a.resource().equals("pods/log")
                    || a.resource().equals("nodes") && a.verb().equals("patch"),
                    "cluster-wide only reads and the node fence: " + a);
        }
        Map<String, Set<Access>> byNamespace = new HashMap<>();
        find(docs, "Role").filter(r -> r.at("/metadata/name").asText().equals("acceltriage-act"))
                .forEach(r -> byNamespace.put(r.at("/metadata/namespace").asText(), grantedBy(r.path("rules"))));
        find(docs, "RoleBinding").filter(b -> b.at("/roleRef/name").asText().equals("acceltriage-act"))
                .forEach(b -> assertBindsServiceAccount(b, "RoleBinding in " + b.at("/metadata/namespace").asText()));
        assertTrue(byNamespace.containsKey("gpu-operator"), "restart-node-agent deletes the node agents' pods");
        assertTrue(byNamespace.get("gpu-operator").contains(new Access("", "pods", "delete")));

        // The policy the overlay mounts is the overlay's policy.yaml, and it names the same namespaces.
        Path file = ROOT.resolve("deploy/kubernetes/overlays/namespaced/policy.yaml");
        JsonNode configMap = find(docs, "ConfigMap").filter(c -> c.at("/metadata/name").asText().startsWith("acceltriage-policies"))
                .findFirst().orElseThrow();
        assertEquals(Files.readString(file), configMap.at("/data/default.yaml").asText());
        io.acceltriage.policy.Policy policy = io.acceltriage.policy.Policy.parse(file.toString(), Files.readAllBytes(file));
        Set<String> workloadNamespaces = new TreeSet<>(byNamespace.keySet());
        workloadNamespaces.remove("gpu-operator");
        assertEquals(workloadNamespaces, new TreeSet<>(policy.scope().namespaces()), "roles.yaml and policy.yaml name the same namespaces");
        for (String ns : workloadNamespaces) {
            for (Access a : List.of(new Access("", "pods", "delete"), new Access("", "pods/eviction", "create"),
                    new Access("", "pods/log", "get"), new Access("apps", "deployments/scale", "update"))) {
                assertTrue(byNamespace.get(ns).contains(a), ns + " grants " + a);
            }
        }
        for (String kind : List.of("drain-node", "reset-gpu", "reboot-node", "replace-node")) {
            assertEquals(io.acceltriage.policy.Decision.DENY, policy.actions().get(kind).decision(),
                    kind + " evicts pods in any namespace: denied where the Roles cannot cover it");
        }
    }

    // ---------------------------------------------------------------- Prometheus rules

    @Test
    void alertRulesPassPromtoolCheck() {
        run("promtool", "check", "rules", RULES.toString());
        run("promtool", "check", "rules", OBJECTIVE_RULES.toString());
    }

    @TestFactory
    Stream<DynamicTest> alertRulesPassTheirPromtoolUnitTests() throws IOException {
        List<Path> files = ruleTestFiles();
        assertFalse(files.isEmpty(), "no promtool tests in " + RULE_TESTS);
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(),
                () -> run(RULE_TESTS, "promtool", "test", "rules", file.getFileName().toString())));
    }

    @Test
    void prometheusRuleCarriesTheSameGroupsAsTheRulesFile() throws IOException {
        com.fasterxml.jackson.databind.node.ArrayNode plain = YAML.createArrayNode();
        plain.addAll((com.fasterxml.jackson.databind.node.ArrayNode) YAML.readTree(RULES.toFile()).path("groups"));
        plain.addAll((com.fasterxml.jackson.databind.node.ArrayNode) YAML.readTree(OBJECTIVE_RULES.toFile()).path("groups"));
        JsonNode resource = YAML.readTree(PROMETHEUS_RULE.toFile());
        assertEquals("monitoring.coreos.com/v1", resource.path("apiVersion").asText(), "PrometheusRule apiVersion");
        assertEquals("PrometheusRule", resource.path("kind").asText(), "PrometheusRule kind");
        assertTrue(plain.size() > 1, "groups in " + RULES + " and " + OBJECTIVE_RULES);
        assertEquals(plain, resource.at("/spec/groups"),
                "prometheusrule.yaml is out of date: run deploy/prometheus/generate-prometheusrule.sh");
    }

    @Test
    void everyAlertFollowsTheLabelConventionAndHasFiringAndQuietTests() throws IOException {
        Map<String, JsonNode> alerts = new HashMap<>();
        for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (rule.has("alert")) {
                    alerts.put(rule.path("alert").asText(), rule);
                }
            }
        }
        assertTrue(alerts.keySet().containsAll(List.of("GpuXidDeviceFault", "GpuXidApplicationFault",
                "GpuXidInfrastructureFault", "GpuDoubleBitEccError", "GpuRowRemapFailure", "GpuNvlinkErrors",
                "GpuPcieReplays", "GpuThermalSlowdown", "GpuAllocatableBelowCapacity", "GpuDevicePluginUnavailable",
                "DcgmExporterDown", "GpuIdleWhilePodsRun")), "alerts " + alerts.keySet());

        Map<String, List<JsonNode>> firing = new HashMap<>();
        Set<String> quiet = new TreeSet<>();
        for (Path file : ruleTestFiles()) {
            for (JsonNode test : YAML.readTree(file.toFile()).path("tests")) {
                for (JsonNode check : test.path("alert_rule_test")) {
                    String name = check.path("alertname").asText();
                    if (check.path("exp_alerts").isEmpty()) {
                        quiet.add(name);
                    }
                    check.path("exp_alerts").forEach(a -> firing.computeIfAbsent(name, k -> new ArrayList<>()).add(a));
                }
            }
        }

        List<String> problems = new ArrayList<>();
        alerts.forEach((name, rule) -> {
            if (!ALERT_NAME.matcher(name).matches()) {
                problems.add(name + ": name must be CamelCase starting with Gpu or Dcgm");
            }
            if (!Set.of("critical", "warning").contains(rule.at("/labels/severity").asText())) {
                problems.add(name + ": severity must be critical or warning, is " + rule.at("/labels/severity"));
            }
            for (String annotation : List.of("summary", "description")) {
                if (!rule.at("/annotations/" + annotation).asText().contains("$labels.node")) {
                    problems.add(name + ": annotation " + annotation + " must name the node");
                }
            }
            if (!quiet.contains(name)) {
                problems.add(name + ": no promtool case where it does not fire (exp_alerts: [])");
            }
            List<JsonNode> cases = firing.getOrDefault(name, List.of());
            if (cases.isEmpty()) {
                problems.add(name + ": no promtool case where it fires");
            }
            if (cases.stream().noneMatch(a -> a.at("/exp_labels/node").asText().length() > 0)) {
                problems.add(name + ": no firing case carries the node label");
            }
            boolean perGpu = rule.path("expr").asText().contains("DCGM_FI_");
            for (JsonNode a : cases) {
                JsonNode labels = a.path("exp_labels");
                List<String> required = new ArrayList<>(List.of("node", "severity"));
                if (perGpu) {
                    required.addAll(List.of("gpu", "UUID"));
                }
                if (name.startsWith("GpuXid")) {
                    required.add("xid");
                }
                if (name.equals("GpuIdleWhilePodsRun")) {
                    required.addAll(List.of("namespace", "pod", "container"));
                }
                for (String label : required) {
                    if (labels.path(label).asText().isEmpty() && !(label.equals("node") && labels.has("daemonset"))) {
                        problems.add(name + ": firing case without label " + label + ": " + labels);
                    }
                }
                if (!a.has("exp_annotations")) {
                    problems.add(name + ": firing case does not check its annotations: " + labels);
                }
            }
        });
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    // ---------------------------------------------------------------- Alertmanager

    @Test
    void alertmanagerConfigsPassAmtool() {
        run("amtool", "check-config", ALERTMANAGER.toString());
        run("amtool", "check-config", ALERTMANAGER_TEST.toString());
    }

    @Test
    void acceleratorAlertsRouteToAcceltriageAndOthersDoNot() {
        for (Path config : List.of(ALERTMANAGER, ALERTMANAGER_TEST)) {
            for (String alert : List.of("GpuXidDeviceFault", "DcgmExporterDown", "GpuIdleWhilePodsRun")) {
                run("amtool", "config", "routes", "test", "--config.file=" + config,
                        "--verify.receivers=acceltriage", "alertname=" + alert, "node=gpu-node-a");
            }
            run("amtool", "config", "routes", "test", "--config.file=" + config,
                    "--verify.receivers=default", "alertname=KubePodCrashLooping", "namespace=ml-train");
        }
    }

    @Test
    void testAlertmanagerConfigDiffersOnlyInUrlAndInlineToken() throws IOException {
        JsonNode production = YAML.readTree(ALERTMANAGER.toFile());
        JsonNode test = YAML.readTree(ALERTMANAGER_TEST.toFile());
        JsonNode webhook = acceltriageWebhook(production);
        assertEquals("http://acceltriage.acceltriage.svc:8080/api/v1/alerts", webhook.path("url").asText(), "webhook url");
        assertTrue(webhook.path("send_resolved").asBoolean(), "send_resolved");
        assertEquals("Bearer", webhook.at("/http_config/authorization/type").asText(), "authorization type");
        assertEquals("/etc/alertmanager/secrets/acceltriage-token",
                webhook.at("/http_config/authorization/credentials_file").asText(), "credentials_file");

        JsonNode testWebhook = acceltriageWebhook(test);
        assertTrue(testWebhook.path("url").asText().startsWith("http://127.0.0.1:"), "test webhook url " + testWebhook);
        assertFalse(testWebhook.at("/http_config/authorization/credentials").asText().isEmpty(), "test inline credentials");
        // Make the test copy look like production; nothing else may differ.
        ((ObjectNode) testWebhook).put("url", webhook.path("url").asText());
        ObjectNode auth = (ObjectNode) testWebhook.at("/http_config/authorization");
        auth.remove("credentials");
        auth.put("credentials_file", "/etc/alertmanager/secrets/acceltriage-token");
        assertEquals(production, test, "alertmanager.test.yaml must equal alertmanager.yaml except url and credentials");
    }

    @Test
    void alertmanagerConfigResourceMatchesThePlainRoute() throws IOException {
        JsonNode plain = YAML.readTree(ALERTMANAGER.toFile());
        JsonNode route = stream(plain.at("/route/routes"))
                .filter(r -> r.path("receiver").asText().equals("acceltriage")).findFirst()
                .orElseThrow(() -> new AssertionError("no acceltriage route in " + ALERTMANAGER));
        JsonNode webhook = acceltriageWebhook(plain);
        JsonNode resource = YAML.readTree(ALERTMANAGER_CONFIG.toFile());
        assertEquals("monitoring.coreos.com/v1alpha1", resource.path("apiVersion").asText(), "AlertmanagerConfig apiVersion");
        assertEquals("AlertmanagerConfig", resource.path("kind").asText(), "kind");
        JsonNode spec = resource.path("spec");
        assertEquals("acceltriage", spec.at("/route/receiver").asText(), "receiver");
        assertEquals(route.path("group_by"), spec.at("/route/groupBy"), "groupBy");
        assertEquals(List.of("10s", "1m", "4h"), List.of(route.path("group_wait").asText(),
                route.path("group_interval").asText(), route.path("repeat_interval").asText()), "plain route intervals");
        assertEquals(route.path("group_wait"), spec.at("/route/groupWait"), "groupWait");
        assertEquals(route.path("group_interval"), spec.at("/route/groupInterval"), "groupInterval");
        assertEquals(route.path("repeat_interval"), spec.at("/route/repeatInterval"), "repeatInterval");
        assertEquals("alertname =~ \"Gpu.*|Dcgm.*\"", route.at("/matchers/0").asText(), "plain matcher");
        JsonNode matcher = spec.at("/route/matchers/0");
        assertEquals(List.of("alertname", "=~", "Gpu.*|Dcgm.*"), List.of(matcher.path("name").asText(),
                matcher.path("matchType").asText(), matcher.path("value").asText()), "AlertmanagerConfig matcher");
        JsonNode resourceWebhook = spec.at("/receivers/0/webhookConfigs/0");
        assertEquals(webhook.path("url"), resourceWebhook.path("url"), "url");
        assertTrue(resourceWebhook.path("sendResolved").asBoolean(), "sendResolved");
        assertEquals("Bearer", resourceWebhook.at("/httpConfig/authorization/type").asText(), "authorization type");
        assertEquals("ACCELTRIAGE_ALERTMANAGER_TOKEN", resourceWebhook.at("/httpConfig/authorization/credentials/key").asText(),
                "token key");
    }

    // ---------------------------------------------------------------- Grafana

    @Test
    void dashboardShowsEveryServiceMetricWithValidQueries() throws IOException {
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        List<String> queries = dashboard.findValues("expr").stream().map(JsonNode::asText).collect(Collectors.toList());
        assertFalse(queries.isEmpty(), "no queries in " + DASHBOARD);
        for (String metric : SERVICE_METRICS) {
            assertTrue(queries.stream().anyMatch(q -> q.contains(metric)), "dashboard has no panel for " + metric);
        }
        Matcher names = Pattern.compile("acceltriage_[a-z_]+").matcher(String.join("\n", queries));
        while (names.find()) {
            String name = names.group().replaceAll("_(bucket|sum|count)$", "");
            assertTrue(SERVICE_METRICS.contains(name), "dashboard queries an unknown metric " + names.group());
        }
        // promtool checks PromQL syntax as recording rules, with Grafana's variables filled in.
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < queries.size(); i++) {
            String expr = queries.get(i).replace("$__rate_interval", "5m").replace("$__range", "1h")
                    .replace("$namespace", ".*");
            rules.append("      - record: dashboard:query").append(i).append("\n        expr: ")
                    .append(JSON.writeValueAsString(expr)).append('\n');
        }
        Path file = Files.createTempFile("acceltriage-dashboard", ".rules.yaml");
        try {
            Files.writeString(file, rules);
            run("promtool", "check", "rules", file.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    // ---------------------------------------------------------------- helpers

    record Access(String apiGroup, String resource, String verb) {
        @Override
        public String toString() {
            return (apiGroup.isEmpty() ? "core" : apiGroup) + " " + resource + " " + verb;
        }
    }

    private static List<Access> row(String apiGroup, String resource, String verbs) {
        return Arrays.stream(verbs.split(" ")).map(v -> new Access(apiGroup, resource, v)).collect(Collectors.toList());
    }

    @SafeVarargs
    static Set<Access> accessTable(List<Access>... rows) {
        Set<Access> all = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
        Arrays.stream(rows).forEach(all::addAll);
        return all;
    }

    static Set<Access> grantedBy(JsonNode rules) {
        Set<Access> granted = accessTable();
        for (JsonNode rule : rules) {
            for (JsonNode group : rule.path("apiGroups")) {
                for (JsonNode resource : rule.path("resources")) {
                    for (JsonNode verb : rule.path("verbs")) {
                        granted.add(new Access(group.asText(), resource.asText(), verb.asText()));
                    }
                }
            }
        }
        return granted;
    }

    private static void assertAccessEquals(Set<Access> expected, Set<Access> granted, String what) {
        Set<Access> missing = accessTable();
        missing.addAll(expected);
        missing.removeAll(granted);
        Set<Access> extra = accessTable();
        extra.addAll(granted);
        extra.removeAll(expected);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            fail(what + " differs from what the code calls.\n  missing (the code needs them): " + missing
                    + "\n  extra (nothing calls them): " + extra);
        }
    }

    private static void assertBindsServiceAccount(JsonNode binding, String what) {
        JsonNode subjects = binding.path("subjects");
        assertEquals(1, subjects.size(), what + " subjects " + subjects);
        JsonNode subject = subjects.get(0);
        assertEquals(List.of("ServiceAccount", "acceltriage", NAMESPACE), List.of(subject.path("kind").asText(),
                subject.path("name").asText(), subject.path("namespace").asText()), what + " subject");
    }

    private static void assertHardenedPod(JsonNode deployment) {
        JsonNode pod = deployment.at("/spec/template/spec");
        assertEquals("acceltriage", pod.path("serviceAccountName").asText(), "service account");
        assertTrue(pod.at("/securityContext/runAsNonRoot").asBoolean(), "pod runAsNonRoot");
        assertEquals("RuntimeDefault", pod.at("/securityContext/seccompProfile/type").asText(), "pod seccomp profile");
        JsonNode c = container(deployment);
        JsonNode sc = c.path("securityContext");
        assertTrue(sc.path("runAsNonRoot").asBoolean(), "container runAsNonRoot");
        assertTrue(sc.path("readOnlyRootFilesystem").asBoolean(), "readOnlyRootFilesystem");
        assertFalse(sc.path("allowPrivilegeEscalation").asBoolean(true), "allowPrivilegeEscalation");
        assertEquals("[\"ALL\"]", sc.at("/capabilities/drop").toString(), "dropped capabilities");
        assertEquals("/q/health/live", c.at("/livenessProbe/httpGet/path").asText(), "liveness probe");
        assertEquals("/q/health/ready", c.at("/readinessProbe/httpGet/path").asText(), "readiness probe");
        for (String limit : List.of("/resources/requests/cpu", "/resources/requests/memory", "/resources/limits/memory")) {
            assertFalse(c.at(limit).asText().isEmpty(), "container " + limit);
        }
        Set<String> emptyDirs = stream(pod.path("volumes")).filter(v -> v.has("emptyDir"))
                .map(v -> v.path("name").asText()).collect(Collectors.toSet());
        Set<String> writable = stream(c.path("volumeMounts")).filter(m -> emptyDirs.contains(m.path("name").asText()))
                .map(m -> m.path("mountPath").asText()).collect(Collectors.toSet());
        assertEquals(Set.of("/tmp", "/work/data"), writable, "writable emptyDir mounts");
    }

    private static JsonNode container(JsonNode deployment) {
        JsonNode containers = deployment.at("/spec/template/spec/containers");
        assertEquals(1, containers.size(), "containers");
        return containers.get(0);
    }

    private static Map<String, String> env(JsonNode container) {
        Map<String, String> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
        return env;
    }

    private static JsonNode acceltriageWebhook(JsonNode alertmanager) {
        JsonNode receiver = stream(alertmanager.path("receivers"))
                .filter(r -> r.path("name").asText().equals("acceltriage")).findFirst()
                .orElseThrow(() -> new AssertionError("no receiver acceltriage"));
        assertEquals(1, receiver.path("webhook_configs").size(), "acceltriage webhook_configs");
        return receiver.path("webhook_configs").get(0);
    }

    static Stream<JsonNode> find(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind));
    }

    private static JsonNode only(List<JsonNode> docs, String kind, String name) {
        List<JsonNode> found = find(docs, kind).filter(d -> d.at("/metadata/name").asText().equals(name))
                .collect(Collectors.toList());
        assertEquals(1, found.size(), kind + " " + name + " in the rendered manifests");
        return found.get(0);
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        array.forEach(items::add);
        return items.stream();
    }

    private static List<Path> ruleTestFiles() throws IOException {
        try (Stream<Path> files = Files.list(RULE_TESTS)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yaml")
                    && !f.getFileName().toString().startsWith(".")).sorted().collect(Collectors.toList());
        }
    }

    static synchronized List<JsonNode> render(String overlay) {
        return RENDERED.computeIfAbsent(overlay, o -> {
            // an overlay's name, or a folder below deploy/kubernetes (optional/medik8s)
            String yaml = run("kubectl", "kustomize", ROOT.resolve("deploy/kubernetes/" + (o.contains("/") ? o : "overlays/" + o)).toString());
            try {
                List<JsonNode> docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml).readAll();
                docs.removeIf(d -> d == null || d.isNull() || d.isMissingNode() || d.isEmpty());
                assertFalse(docs.isEmpty(), "kubectl kustomize " + o + " rendered nothing");
                return docs;
            } catch (IOException e) {
                throw new AssertionError("kubectl kustomize " + o + " did not render YAML: " + e.getMessage() + "\n" + yaml, e);
            }
        });
    }

    private static String run(String... command) {
        return run(ROOT, command);
    }

    /** Runs a tool, fails with its output unless it exits 0 within the timeout, returns its stdout. */
    private static String run(Path directory, String... command) {
        String tool = command[0];
        if (!onPath(tool)) {
            fail(tool + " is not installed: install the Debian package " + DEBIAN_PACKAGE.get(tool)
                    + " (apt-get install " + DEBIAN_PACKAGE.get(tool).split(" ")[0] + ")");
        }
        String line = String.join(" ", command);
        try {
            Path out = Files.createTempFile("acceltriage-tool", ".out");
            Path err = Files.createTempFile("acceltriage-tool", ".err");
            try {
                Process process = new ProcessBuilder(command).directory(directory.toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!process.waitFor(TOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    fail(line + " did not finish within " + TOOL_TIMEOUT.toSeconds() + " s\n" + output(out, err));
                }
                if (process.exitValue() != 0) {
                    fail(line + " exited " + process.exitValue() + "\n" + output(out, err));
                }
                return Files.readString(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run " + line + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + line, e);
        }
    }

    private static String output(Path out, Path err) throws IOException {
        return "--- stdout\n" + Files.readString(out, StandardCharsets.UTF_8)
                + "--- stderr\n" + Files.readString(err, StandardCharsets.UTF_8);
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Arrays.stream(path.split(File.pathSeparator)).map(dir -> Path.of(dir, tool))
                .anyMatch(p -> Files.isRegularFile(p) && Files.isExecutable(p));
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("deploy/kubernetes")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new AssertionError("no deploy/kubernetes above " + dir);
    }

    /** The image `./mvnw package -Dquarkus.container-image.build=true` makes, from application.properties. */
    private static String builtImage() {
        java.util.Properties p = new java.util.Properties();
        try (var in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of("src/main/resources/application.properties"))) {
            p.load(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return p.getProperty("quarkus.container-image.registry") + "/" + p.getProperty("quarkus.container-image.group") + "/"
                + p.getProperty("quarkus.container-image.name") + ":" + p.getProperty("quarkus.container-image.tag");
    }
}
