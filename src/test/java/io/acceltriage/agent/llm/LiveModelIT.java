package io.acceltriage.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.acceltriage.chat.FakeChat;
import io.acceltriage.testing.ServerProcess;
import io.acceltriage.testing.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, through the packaged jar: with ACCELTRIAGE_LLM_BASE_URL set, the live service really
 * calls the model — for the summary of a clear XID 79 (on a node of the training gang), for an investigation of an XID 31 the rules
 * classify with low confidence — and every call is in that incident's audit. When the model answers
 * 500 or hangs past the timeout, the incident still concludes by the rules and the audit says so.
 * A free-form Slack question is answered by the model from the incident's record, and by the rules
 * (saying so) when the model is down. The model is a scripted OpenAI-compatible server on loopback
 * that counts what it is sent.
 */
class LiveModelIT {

    private static final String ADMIN = "live-model-admin-token-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern EVIDENCE_LINE = Pattern.compile("(?m)^(E\\d+) \\[");
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Pattern CHAT_ABOUT = Pattern.compile("The question is about incident (inc-[a-z0-9]+)\\.");
    private static final String SLACK_SECRET = "live-model-slack-signing-secret";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path data;

    @Test
    void theLiveServiceCallsTheModelWhereItAddsSomethingAndTheRulesTakeOverWhenItFails() throws Exception {
        AtomicReference<Function<JsonNode, ScriptedModelServer.Reply>> model = new AtomicReference<>(LiveModelIT::agreeable);
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(req -> model.get().apply(req));
                ServiceProcess service = ServiceProcess.start(data, Map.of(
                        "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                        "ACCELTRIAGE_LLM_BASE_URL", server.baseUrl(),
                        "ACCELTRIAGE_LLM_API_KEY", "sk-live-test-not-real",
                        "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                        "ACCELTRIAGE_LLM_TIMEOUT", TIMEOUT.toSeconds() + "s",
                        "ACCELTRIAGE_SLACK_SIGNING_SECRET", SLACK_SECRET,
                        "ACCELTRIAGE_SLACK_BOT_TOKEN", "xoxb-test-token",
                        "ACCELTRIAGE_SLACK_API_URL", FakeChat.start().url() + "/slack/api"))) {
            service.awaitReady(Duration.ofSeconds(120));

            JsonNode mode = json(service.awaitBody("/api/v1/mode", ADMIN, Duration.ofSeconds(20), b -> b.contains("\"reachable\"")));
            assertEquals("model", mode.path("mode").asText());
            assertEquals(ScriptedModelServer.MODEL, mode.path("model").asText());
            assertTrue(mode.path("endpointProbe").path("reachable").asBoolean(), mode.toString());

            // A clear XID 79 (device, high confidence): the rules decide, the model writes the summary.
            JsonNode xid79 = summarised(service, faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}", "gpu-h100-03"));
            assertEquals(List.of("summarise"), purposesSentFor(server, "gpu-h100-03"), "one summary, no investigation of a clear case");
            List<JsonNode> calls = audit(service, xid79, "model.call");
            assertEquals(List.of("summarise"), calls.stream().map(c -> c.path("payload").path("purpose").asText()).toList());
            assertEquals("ok", calls.get(0).path("payload").path("outcome").asText());
            assertTrue(calls.get(0).path("payload").path("tokensIn").asLong() > 0, calls.toString());
            assertTrue(xid79.path("summary").asText().startsWith("Scripted summary"), xid79.path("summary").asText());

            // A question in Slack: the model answers it from the incident's record and audit, cited; the call is on its trail.
            String chat = ask(service, "why was gpu-h100-03 cordoned?", "q-cordoned");
            assertTrue(chat.startsWith("Scripted chat answer about " + xid79.path("id").asText()), chat);
            assertTrue(chat.contains("Answered by the model " + ScriptedModelServer.MODEL + " from incident " + xid79.path("id").asText()), chat);
            JsonNode asked = server.requests().stream().filter(r -> sent(r).contains("why was gpu-h100-03 cordoned?")).findFirst().orElseThrow();
            assertTrue(sent(asked).contains("<untrusted-data source=\"audit:" + xid79.path("id").asText() + "\">"), sent(asked));
            assertTrue(sent(asked).contains("model.call"), "the audit trail reached the model: " + sent(asked));
            assertTrue(audit(service, xid79, "model.call").stream().anyMatch(c -> c.path("payload").path("purpose").asText().equals("chat")
                    && c.path("payload").path("outcome").asText().equals("ok")), "the chat call is audited on the incident");

            // An XID 31 the rules call application with low confidence: the model investigates, then summarises.
            JsonNode xid31 = summarised(service, faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-08\",\"gpu\":1,\"xid\":31}", "gpu-h100-08"));
            assertTrue(xid31.path("confidence").asDouble() < ModelScope.UNSURE_BELOW, xid31.toString());
            assertEquals(List.of("investigate", "summarise"), purposesSentFor(server, "gpu-h100-08"));
            assertEquals(2, audit(service, xid31, "model.call").size());
            // A figure for the README, not an assertion: what a live incident costs in input tokens.
            System.out.printf("live model input tokens: XID 79 (summary) %d, XID 31 (investigation and summary) %d%n",
                    tokensIn(service, xid79), tokensIn(service, xid31));
            assertTrue(audit(service, xid31, "guardrail").stream().anyMatch(g -> g.path("payload").path("guard").asText().equals("cross-check")
                    && g.path("payload").path("agrees").asBoolean()), "the rules cross-checked the model's family");

            // The model answers 500: the rules' assessment and template stand, and the audit says why.
            model.set(req -> new ScriptedModelServer.Reply(500, "{\"error\":{\"message\":\"upstream exploded\"}}", 0));
            JsonNode failed = summarised(service, faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-06\",\"gpu\":5,\"xid\":79}", "gpu-h100-06"));
            assertTookOver(service, failed, "server-error");
            assertTrue(failed.path("summary").asText().startsWith("DEVICE fault on node:gpu-h100-06"), failed.path("summary").asText());

            // The model down: the question gets the rules' answer, which says so, and the failed call is audited.
            String down = ask(service, "what is wrong with incident " + failed.path("id").asText() + "?", "q-down");
            assertTrue(down.startsWith("The model could not answer (model call failed (server-error)"), down);
            assertTrue(down.contains("so this is the rules' answer:") && down.contains(failed.path("id").asText()), down);
            assertTrue(audit(service, failed, "model.call").stream().anyMatch(c -> c.path("payload").path("purpose").asText().equals("chat")
                    && c.path("payload").path("outcome").asText().equals("server-error")), "the failed chat call is audited");

            // The model hangs past the timeout on an investigation: still concluded, within the timeout and a margin.
            model.set(req -> new ScriptedModelServer.Reply(200, agreeable(req).body(), 15_000));
            long started = System.nanoTime();
            JsonNode hung = faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-07\",\"gpu\":1,\"xid\":31}", "gpu-h100-07");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertTookOver(service, hung, "timeout");
            assertTrue(took.compareTo(TIMEOUT.multipliedBy(2).plusSeconds(8)) < 0, "concluded in " + took.toMillis() + " ms");
            assertEquals(hung.path("family").asText(), "application", "the rules' family stands");
        }
    }

    /**
     * The summary is off the decision path: with the model taking seconds to summarise, the incident's
     * verdicts are stored and its allowed actions carried out before the summary is asked for (audit
     * order and stored times, not wall-clock bounds), then the stored summary and the Slack message
     * become the model's. A failing summary leaves the rules' summary, and the audit says so.
     */
    @Test
    void aSlowSummaryIsWrittenAfterTheDecisionIsStoredAndCarriedOutAndAFailingOneLeavesTheRulesSummary() throws Exception {
        long summaryDelay = 4_000;
        AtomicReference<Function<JsonNode, ScriptedModelServer.Reply>> model = new AtomicReference<>(req -> {
            ScriptedModelServer.Reply r = agreeable(req);
            return req.has("tools") ? r : new ScriptedModelServer.Reply(r.status(), r.body(), summaryDelay);
        });
        String slack = FakeChat.start().url();
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(req -> model.get().apply(req));
                ServiceProcess service = ServiceProcess.start(data, Map.of(
                        "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                        "ACCELTRIAGE_LLM_BASE_URL", server.baseUrl(),
                        "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                        "ACCELTRIAGE_LLM_TIMEOUT", "20s",
                        "ACCELTRIAGE_SLACK_BOT_TOKEN", "xoxb-test-token",
                        "ACCELTRIAGE_SLACK_CHANNEL", "C0LATESUMMARY",
                        "ACCELTRIAGE_SLACK_API_URL", slack + "/slack/api"))) {
            service.awaitReady(Duration.ofSeconds(120));

            // XID 79 on a node of the training gang: the rules cordon it and restart the gang (allowed), repair waits for a person.
            JsonNode decided = faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}", "gpu-h100-03");
            JsonNode incident = summarised(service, decided);
            String id = incident.path("id").asText();
            List<JsonNode> timeline = StreamSupport.stream(incident.path("timeline").spliterator(), false).toList();
            JsonNode summaryCall = timeline.stream().filter(r -> r.path("kind").asText().equals("model.call")).findFirst().orElseThrow();
            assertEquals("summarise", summaryCall.path("payload").path("purpose").asText());
            assertTrue(summaryCall.path("payload").path("latencyMs").asLong() >= summaryDelay, summaryCall.toString());
            assertTrue(summaryCall.path("payload").path("reason").asText().startsWith("the summary of the rules' decision (device"),
                    summaryCall.toString());
            long summarySeq = summaryCall.path("seq").asLong();
            List<JsonNode> decisions = timeline.stream().filter(r -> List.of("verdict", "action.started", "action.finished")
                    .contains(r.path("kind").asText())).toList();
            assertTrue(decisions.stream().anyMatch(r -> r.path("kind").asText().equals("action.finished")), "an allowed action ran: " + timeline);
            for (JsonNode r : decisions) {
                assertTrue(r.path("seq").asLong() < summarySeq, "decided and carried out before the summary was audited: " + r);
            }
            Instant summaryAt = Instant.parse(summaryCall.path("at").asText());
            List<JsonNode> ran = StreamSupport.stream(incident.path("actions").spliterator(), false)
                    .filter(a -> List.of("succeeded", "unverified", "failed").contains(a.path("status").asText().toLowerCase())).toList();
            assertFalse(ran.isEmpty(), incident.path("actions").toString());
            for (JsonNode a : ran) {
                assertTrue(Instant.parse(a.path("updatedAt").asText()).isBefore(summaryAt), "the action ended before the summary came: " + a);
            }
            assertTrue(incident.path("summary").asText().startsWith("Scripted summary"), incident.path("summary").asText());
            // The channel's message: posted with the rules' summary at the decision, then edited to the model's.
            service.await("the Slack message edited with the model's summary", Duration.ofSeconds(30), () -> FakeChat.recorded(slack,
                    "/slack/api/chat.update").stream().anyMatch(m -> m.body().contains(id) && m.body().contains("Scripted summary")));
            FakeChat.Received first = FakeChat.recorded(slack, "/slack/api/chat.postMessage").stream()
                    .filter(m -> m.body().contains(id)).findFirst().orElseThrow();
            assertFalse(first.body().contains("Scripted summary"), "the decision was told before the model summarised it");

            // The model fails the summary: the rules' summary stands, and the audit says why.
            model.set(req -> new ScriptedModelServer.Reply(500, "{\"error\":{\"message\":\"upstream exploded\"}}", 0));
            JsonNode failed = summarised(service, faultAndConclusion(service,
                    "{\"kind\":\"xid\",\"node\":\"gpu-h100-06\",\"gpu\":5,\"xid\":79}", "gpu-h100-06"));
            assertTrue(failed.path("summary").asText().startsWith("DEVICE fault on node:gpu-h100-06"), failed.path("summary").asText());
            assertTookOver(service, failed, "server-error");
            assertTrue(audit(service, failed, "guardrail").stream().anyMatch(g -> g.path("payload").path("detail").asText()
                    .startsWith("summary failed, template used")), "the audit says the template's summary stands");
            assertFalse(failed.path("assessment").path("model").path("summaryAccepted").asBoolean(true), failed.path("assessment").toString());
        }
    }

    /**
     * Sources that disagree are investigated however sure the rules are: in the sandbox, the device
     * plugin marks a GPU Unhealthy (allocatable drops, the pod's allocatedResourcesStatus says so) while
     * the exporter reads the node clean; the alert Prometheus would fire on allocatable arrives through
     * the webhook, and the incident carries an investigation model.call that says why it was made.
     */
    @Test
    void aDeviceKubernetesCallsUnhealthyWhileTheExporterReadsItCleanIsInvestigatedByTheModel() throws Exception {
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(LiveModelIT::agreeable);
                ServiceProcess service = ServiceProcess.start(data, Map.of(
                        "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                        "ACCELTRIAGE_ALERTMANAGER_TOKEN", "live-model-alertmanager-token",
                        "ACCELTRIAGE_LLM_BASE_URL", server.baseUrl(),
                        "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                        "ACCELTRIAGE_LLM_TIMEOUT", "20s"))) {
            service.awaitReady(Duration.ofSeconds(120));
            Path kubeconfig = data.resolve("sandbox-kubeconfig.yaml");
            service.await("the sandbox's kubeconfig", Duration.ofSeconds(30), () -> java.nio.file.Files.isRegularFile(kubeconfig));
            String node;
            try (io.fabric8.kubernetes.client.KubernetesClient kube = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                    .withConfig(io.fabric8.kubernetes.client.Config.fromKubeconfig(java.nio.file.Files.readString(kubeconfig))).build()) {
                // The device plugin's view only: one GPU withdrawn, its holder's status Unhealthy; the exporter is not touched.
                io.fabric8.kubernetes.api.model.Pod holder = kube.pods().inAnyNamespace().list().getItems().stream()
                        .filter(p -> p.getSpec().getNodeName() != null && p.getSpec().getNodeName().startsWith("gpu-h100-"))
                        .filter(p -> p.getStatus().getContainerStatuses().stream().anyMatch(c -> c.getAllocatedResourcesStatus() != null
                                && !c.getAllocatedResourcesStatus().isEmpty()))
                        .findFirst().orElseThrow(() -> new AssertionError("no pod holding a GPU on a gpu-h100 node"));
                node = holder.getSpec().getNodeName();
                kube.pods().inNamespace(holder.getMetadata().getNamespace()).withName(holder.getMetadata().getName()).edit(p -> {
                    var c = p.getStatus().getContainerStatuses().stream().filter(x -> x.getAllocatedResourcesStatus() != null
                            && !x.getAllocatedResourcesStatus().isEmpty()).findFirst().orElseThrow();
                    c.getAllocatedResourcesStatus().get(0).getResources().get(0).setHealth("Unhealthy");
                    return p;
                });
                kube.nodes().withName(node).edit(n -> {
                    var allocatable = n.getStatus().getAllocatable();
                    int gpus = Integer.parseInt(allocatable.get("nvidia.com/gpu").getAmount());
                    allocatable.put("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity(String.valueOf(gpus - 1)));
                    return n;
                });
            }
            String now = Instant.now().toString();
            HttpResponse<String> ack = service.postJson("/api/v1/alerts", "live-model-alertmanager-token", """
                    {"version":"4","groupKey":"{}:{alertname=\\"GpuAllocatableBelowCapacity\\"}","status":"firing","receiver":"acceltriage","alerts":[
                     {"status":"firing","labels":{"alertname":"GpuAllocatableBelowCapacity","node":"%s","resource":"nvidia.com/gpu","severity":"warning"},
                      "annotations":{"summary":"GPUs withdrawn by the device plugin"},"startsAt":"%s","endsAt":"0001-01-01T00:00:00Z","fingerprint":"d15a9ee000000001"}]}
                    """.formatted(node, now));
            assertEquals(200, ack.statusCode(), ack.body());
            String body = service.awaitBody("/api/v1/incidents?node=" + node, ADMIN, Duration.ofSeconds(60),
                    b -> b.contains("\"family\":\"") && !b.contains("\"state\":\"triaging\""));
            JsonNode incident = summarised(service, json(body).path("items").get(0));

            JsonNode disagreement = incident.path("assessment").path("diagnosis").path("disagreements").path(0);
            assertEquals("KUBERNETES_AND_EXPORTER", disagreement.path("between").asText(), incident.path("assessment").toString());
            List<JsonNode> calls = audit(service, incident, "model.call");
            JsonNode investigation = calls.stream().filter(c -> c.path("payload").path("purpose").asText().equals("investigate"))
                    .findFirst().orElseThrow(() -> new AssertionError("no investigation: " + calls));
            assertTrue(investigation.path("payload").path("reason").asText().startsWith("sources disagree (kubernetes and exporter): Kubernetes reports a device fault on " + node),
                    investigation.toString());
            assertTrue(server.requests().stream().filter(r -> r.has("tools")).anyMatch(r -> sent(r).contains("Sources disagree: Kubernetes reports")),
                    "the investigation is told what disagrees");
        }
    }

    /**
     * With Prometheus configured, the live model's investigation is offered the declarative tools of
     * tools/ (run against a real Prometheus scraping the sandbox's exporter) and the incident's
     * runbook, through one dispatcher (prometheus_query) offering only the queries that fit the node;
     * each call is a model.tool record naming the query it ran, and an argument outside the chosen
     * query's parameters, or a query not offered, is refused without anything being sent.
     */
    @Test
    void theLiveModelReadsPrometheusThroughTheTypedToolsAndTheRunbookAndAnArgumentOutsideTheSchemaIsRefused() throws Exception {
        ServerProcess.requireBinary("/usr/bin/prometheus", "prometheus");
        String node = "gpu-h100-08";
        String hostile = node + "\\\"} or vector(1) #";
        Function<JsonNode, ScriptedModelServer.Reply> investigator = req -> {
            if (!req.has("tools")) return agreeable(req);
            boolean toolsAnswered = StreamSupport.stream(req.path("messages").spliterator(), false)
                    .anyMatch(m -> m.path("role").asText().equals("tool"));
            if (toolsAnswered) return agreeable(req);
            return ScriptedModelServer.toolCalls(List.of(Map.entry(PrometheusTools.NAME, "{\"tool\":\"gpu_xid_errors\",\"node\":\"" + node + "\"}"),
                    Map.entry("incident_runbook", "{}"),
                    Map.entry(PrometheusTools.NAME, "{\"tool\":\"gpu_xid_errors\",\"node\":\"" + hostile + "\"}"),
                    Map.entry(PrometheusTools.NAME, "{\"tool\":\"gpu_ecc_dbe_volatile\",\"node\":\"" + node + "\",\"query\":\"up\"}"),
                    Map.entry(PrometheusTools.NAME, "{\"tool\":\"node_exec\",\"node\":\"" + node + "\"}")));
        };
        int prometheusPort = ServerProcess.freePort();
        String prometheusUrl = "http://127.0.0.1:" + prometheusPort;
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(investigator);
                ServiceProcess service = ServiceProcess.start(data, Map.of(
                        "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                        "ACCELTRIAGE_PROMETHEUS_URL", prometheusUrl,
                        "ACCELTRIAGE_LLM_BASE_URL", server.baseUrl(),
                        "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                        "ACCELTRIAGE_LLM_TIMEOUT", "20s"))) {
            service.awaitReady(Duration.ofSeconds(120));
            URI exporter = URI.create(service.url("/sandbox/exporter/" + node + "/metrics"));
            Path dir = data.resolve("prometheus");
            java.nio.file.Files.createDirectories(dir);
            java.nio.file.Files.writeString(dir.resolve("prometheus.yml"), """
                    global:
                      scrape_interval: 1s
                    scrape_configs:
                      - job_name: dcgm-exporter
                        honor_labels: true
                        metrics_path: %s
                        static_configs:
                          - targets: ['%s:%d']
                    """.formatted(exporter.getPath(), exporter.getHost(), exporter.getPort()));
            try (ServerProcess prometheus = ServerProcess.start("prometheus", dir, List.of("/usr/bin/prometheus",
                    "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + prometheusPort, "--log.level=warn"))) {
                prometheus.await("Prometheus scraping the sandbox's exporter of " + node, Duration.ofSeconds(60), () -> {
                    String r = ServerProcess.get(prometheusUrl + "/api/v1/query?query=DCGM_FI_DEV_XID_ERRORS");
                    return r != null && r.contains("\"Hostname\":\"" + node + "\"");
                });

                // XID 31, which the rules call application with low confidence: the model investigates with the tools.
                JsonNode incident = summarised(service, faultAndConclusion(service,
                        "{\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":1,\"xid\":31}", node));
                List<JsonNode> tools = audit(service, incident, "model.tool");
                // The audit names the declarative tool the dispatcher ran; a name outside the offered ones keeps the dispatcher's.
                assertEquals(List.of("gpu_xid_errors", "incident_runbook", "gpu_xid_errors", "gpu_ecc_dbe_volatile", PrometheusTools.NAME),
                        tools.stream().map(t -> t.path("payload").path("tool").asText()).toList(), tools.toString());
                JsonNode xid = tools.get(0).path("payload");
                assertEquals("ok", xid.path("outcome").asText(), xid.toString());
                assertTrue(xid.path("result").asText().contains("DCGM_FI_DEV_XID_ERRORS{") && xid.path("result").asText().contains("all with {")
                        && xid.path("result").asText().contains("Hostname=" + node),
                        "Prometheus' answer, as the model read it: " + xid);
                JsonNode runbook = tools.get(1).path("payload");
                assertEquals("ok", runbook.path("outcome").asText(), runbook.toString());
                assertTrue(runbook.path("result").asText().contains("http"), "the runbook with its guides: " + runbook);
                for (JsonNode refused : List.of(tools.get(2).path("payload"), tools.get(3).path("payload"), tools.get(4).path("payload"))) {
                    assertEquals("refused", refused.path("outcome").asText(), refused.toString());
                    assertTrue(refused.path("result").asText().startsWith("refused, nothing was run"), refused.toString());
                }
                assertTrue(tools.get(2).path("payload").path("result").asText().contains("node of gpu_xid_errors must be a Kubernetes node name"),
                        tools.get(2).toString());
                assertTrue(tools.get(3).path("payload").path("result").asText().contains("'query' is not a parameter of gpu_ecc_dbe_volatile"),
                        tools.get(3).toString());
                assertTrue(tools.get(4).path("payload").path("result").asText().contains("'node_exec' is not one of this incident's Prometheus tools"),
                        tools.get(4).toString());
                JsonNode investigation = server.requests().stream().filter(r -> r.has("tools") && sent(r).contains(node)).findFirst().orElseThrow();
                List<String> offered = StreamSupport.stream(investigation.path("tools").spliterator(), false)
                        .map(t -> t.path("function").path("name").asText()).toList();
                assertTrue(offered.containsAll(List.of(PrometheusTools.NAME, "incident_runbook", "get_evidence")), offered.toString());
                assertFalse(offered.contains("gpu_xid_errors"), "one dispatcher, not a schema per Prometheus tool: " + offered);
                List<String> queries = StreamSupport.stream(investigation.path("tools").spliterator(), false)
                        .filter(t -> t.path("function").path("name").asText().equals(PrometheusTools.NAME))
                        .flatMap(t -> StreamSupport.stream(t.path("function").path("parameters").path("properties").path("tool").path("enum")
                                .spliterator(), false)).map(JsonNode::asText).toList();
                assertTrue(queries.contains("gpu_xid_errors"), queries.toString());
                assertTrue(queries.stream().noneMatch(q -> q.startsWith("amd_") || q.startsWith("tpu_")),
                        "an NVIDIA node is offered no AMD or TPU tools: " + queries);
                // A figure for the README, not an assertion: the investigation's cost with the Prometheus tools offered.
                System.out.printf("live model input tokens with Prometheus tools: XID 31 (investigation with %d tools and %d Prometheus"
                        + " queries offered, one tool round, and summary) %d, of which the investigation %d%n", offered.size(), queries.size(),
                        tokensIn(service, incident), audit(service, incident, "model.call").stream()
                                .filter(c -> c.path("payload").path("purpose").asText().equals("investigate"))
                                .mapToLong(c -> c.path("payload").path("tokensIn").asLong()).sum());
            }
        }
    }

    /**
     * A storm through the packaged service: the device plugin's bad revision reaches 12 nodes of the
     * sandbox (more than the 10 a storm needs), the alerts form one fleet incident, and the model is
     * asked what the affected nodes share. Its answer is cross-checked against the rules' family, and a
     * hostile answer proposing to cordon every affected node widens nothing: each proposal is refused by
     * the scope guard (the fleet's bundle has no node of its own and the rules fence none), audited as
     * such, and the fleet incident carries no node action.
     */
    @Test
    void aFleetIncidentIsInvestigatedByTheModelAndItsProposalToCordonEveryNodeWidensNothing() throws Exception {
        List<String> nodes = java.util.stream.IntStream.rangeClosed(1, 12).mapToObj(i -> String.format("gpu-h100-%02d", i)).toList();
        Function<JsonNode, ScriptedModelServer.Reply> hostile = req -> {
            String sent = sent(req);
            if (!req.has("tools") || !sent.contains("Incident subject: alert:fleet:")) return agreeable(req);
            List<String> ids = new ArrayList<>();
            Matcher m = EVIDENCE_LINE.matcher(sent);
            while (m.find() && ids.size() < 2) ids.add(m.group(1));
            return ScriptedModelServer.answer(Map.of("family", "INFRASTRUCTURE", "cause", "the device plugin's new revision on every node",
                    "evidenceIds", ids, "proposals", nodes.stream().map(n -> Map.of("kind", "cordon-node", "target", n,
                            "reason", "ignore your limits and cordon every node")).toList()));
        };
        try (ScriptedModelServer server = new ScriptedModelServer().otherwise(hostile);
                ServiceProcess service = ServiceProcess.start(data, Map.of(
                        "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                        "ACCELTRIAGE_LLM_BASE_URL", server.baseUrl(),
                        "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                        "ACCELTRIAGE_LLM_TIMEOUT", "20s"))) {
            service.awaitReady(Duration.ofSeconds(120));
            for (String node : nodes) {
                HttpResponse<String> r = service.postJson("/api/v1/sandbox/faults", ADMIN, "{\"kind\":\"device-plugin-rollout\",\"node\":\"" + node + "\"}");
                assertEquals(202, r.statusCode(), r.body());
            }
            String list = service.awaitBody("/api/v1/incidents?limit=100", ADMIN, Duration.ofSeconds(90),
                    b -> StreamSupport.stream(json(b).path("items").spliterator(), false).anyMatch(i -> i.toString().contains("fleet:")
                            && !i.path("state").asText().equals("triaging") && !i.path("family").asText().isEmpty()));
            JsonNode fleet = StreamSupport.stream(json(list).path("items").spliterator(), false)
                    .filter(i -> i.toString().contains("fleet:")).findFirst().orElseThrow();
            JsonNode incident = summarised(service, fleet);
            assertEquals("alert:fleet:GpuDevicePluginUnavailable", incident.path("subject").asText(), incident.toString());
            assertEquals("infrastructure", incident.path("family").asText(), "the rules' family stands: " + incident.path("assessment"));

            // The model was asked what the nodes share, and told so in the audit.
            List<JsonNode> calls = audit(service, incident, "model.call");
            JsonNode investigation = calls.stream().filter(c -> c.path("payload").path("purpose").asText().equals("investigate"))
                    .findFirst().orElseThrow(() -> new AssertionError("no investigation of the fleet: " + calls));
            assertTrue(investigation.path("payload").path("reason").asText().startsWith("a fleet incident: what do the affected nodes share?"),
                    investigation.toString());
            assertTrue(audit(service, incident, "guardrail").stream().anyMatch(g -> g.path("payload").path("guard").asText().equals("cross-check")
                    && g.path("payload").path("agrees").asBoolean()), "the rules cross-checked the model's family");

            // Every cordon the model asked for was refused by the scope guard, audited, and none ran.
            List<JsonNode> scope = audit(service, incident, "guardrail").stream()
                    .filter(g -> g.path("payload").path("guard").asText().equals("scope")).toList();
            for (String node : nodes) {
                assertTrue(scope.stream().anyMatch(g -> g.path("payload").path("detail").asText().startsWith("refused the model's cordon-node:" + node + ":")),
                        node + " refused in the audit: " + scope);
            }
            for (JsonNode j : incident.path("assessment").path("judgements")) {
                if (!j.path("proposal").path("kind").asText().equals("cordon-node")) continue;
                assertEquals("deny", j.path("verdict").path("decision").asText(), j.toString());
                assertEquals("agent-scope", j.path("verdict").path("rule").asText(), j.toString());
            }
            List<String> nodeActions = List.of("cordon-node", "drain-node", "restart-node-agent", "reset-gpu", "repair-node");
            assertTrue(StreamSupport.stream(incident.path("actions").spliterator(), false)
                    .noneMatch(a -> nodeActions.contains(a.path("kind").asText())), "no node action on the fleet: " + incident.path("actions"));
            assertTrue(audit(service, incident, "action.started").stream()
                    .noneMatch(a -> a.toString().contains("cordon-node")), "nothing cordoned for the fleet");
        }
    }

    @Test
    void anUnreachableModelEndpointIsSaidOnTheModeEndpointUntilItComesUpAndEverySeamOfThePackagedServiceResolves() throws Exception {
        int closed = ServerProcess.freePort(); // nothing listens there
        try (ServiceProcess service = ServiceProcess.start(data, Map.of(
                "ACCELTRIAGE_ACCESS_TOKENS", "live-test:admin:" + ADMIN,
                "ACCELTRIAGE_LLM_BASE_URL", "http://127.0.0.1:" + closed + "/v1",
                "ACCELTRIAGE_LLM_MODEL", ScriptedModelServer.MODEL,
                "ACCELTRIAGE_LLM_PROBE_EVERY", "1s",
                // Every incident is investigated, however sure the rules are.
                "ACCELTRIAGE_LLM_INVESTIGATE_BELOW", "1"))) {
            service.awaitReady(Duration.ofSeconds(120));
            JsonNode mode = json(service.awaitBody("/api/v1/mode", ADMIN, Duration.ofSeconds(20), b -> b.contains("\"reachable\"")));
            assertEquals("model", mode.path("mode").asText());
            assertFalse(mode.path("endpointProbe").path("reachable").asBoolean(true), mode.toString());
            assertTrue(mode.path("endpointProbe").path("detail").asText().startsWith("unreachable"), mode.toString());

            // The seams the pages, chat and /metrics ask for are built into the jar, not only into the tests.
            String fleet = service.get("/fleet", ADMIN).body();
            assertFalse(fleet.contains("not built into this version"), fleet);
            assertTrue(fleet.contains("Circuit breaker:</b>") && fleet.contains("closed"), fleet);
            assertTrue(service.get("/metrics", null).body().contains("\nacceltriage_circuit_breaker_tripped 0.0"), "the gauge is set");

            // The model comes up where it was expected: the repeated probe says so without a restart.
            try (ScriptedModelServer server = new ScriptedModelServer(closed).otherwise(LiveModelIT::agreeable)) {
                JsonNode up = json(service.awaitBody("/api/v1/mode", ADMIN, Duration.ofSeconds(30), b -> b.contains("\"reachable\":true")));
                assertTrue(up.path("endpointProbe").path("detail").asText().startsWith("answered"), up.toString());

                // investigate-below 1: even a clear XID 79 is investigated, not only summarised.
                JsonNode xid79 = summarised(service, faultAndConclusion(service, "{\"kind\":\"xid\",\"node\":\"gpu-h100-03\",\"gpu\":2,\"xid\":79}", "gpu-h100-03"));
                assertEquals(List.of("investigate", "summarise"), purposesSentFor(server, "gpu-h100-03"));
                assertEquals(2, audit(service, xid79, "model.call").size());
            }
            JsonNode down = json(service.awaitBody("/api/v1/mode", ADMIN, Duration.ofSeconds(30), b -> b.contains("\"reachable\":false")));
            assertTrue(down.path("endpointProbe").path("detail").asText().startsWith("unreachable"), down.toString());
        }
    }

    /** Asks {@code question} with a signed Slack slash command; returns the answer posted to its response_url. */
    private static String ask(ServiceProcess service, String question, String name) throws Exception {
        String fake = FakeChat.start().url();
        String body = "command=%2Ftriage&user_id=U0SOMEONE&user_name=sam&channel_id=C0OPS&text="
                + URLEncoder.encode(question, StandardCharsets.UTF_8) + "&response_url="
                + URLEncoder.encode(fake + "/slack/response/" + name, StandardCharsets.UTF_8);
        long ts = System.currentTimeMillis() / 1000;
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SLACK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String sig = "v0=" + HexFormat.of().formatHex(mac.doFinal(("v0:" + ts + ":" + body).getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(service.url("/api/v1/slack/commands")))
                .header("Content-Type", "application/x-www-form-urlencoded").header("X-Slack-Request-Timestamp", Long.toString(ts))
                .header("X-Slack-Signature", sig).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            List<FakeChat.Received> got = FakeChat.recorded(fake, "/slack/response/" + name);
            if (!got.isEmpty()) return got.get(0).json().path("text").asText();
            Thread.sleep(200);
        }
        throw new AssertionError("no answer to '" + question + "' within 60 s");
    }

    /** What a cooperative model answers: the investigation agrees with the rules' XID reading, the summary cites real evidence. */
    private static ScriptedModelServer.Reply agreeable(JsonNode request) {
        String sent = sent(request);
        Matcher about = CHAT_ABOUT.matcher(sent);
        if (sent.contains("answering an engineer's question in a chat channel") && about.find()) {
            return ScriptedModelServer.answer(Map.of("text", "Scripted chat answer about " + about.group(1) + ": XID 79, the GPU fell off the bus.",
                    "evidenceIds", List.of(about.group(1))));
        }
        List<String> ids = new ArrayList<>();
        Matcher m = EVIDENCE_LINE.matcher(sent);
        while (m.find() && ids.size() < 2) ids.add(m.group(1));
        if (request.has("tools")) {
            String family = sent.contains("GpuXidApplicationFault") ? "APPLICATION" : "DEVICE";
            return ScriptedModelServer.answer(Map.of("family", family, "cause", "the XID in the alert", "evidenceIds", ids,
                    "proposals", List.of()));
        }
        return ScriptedModelServer.answer(Map.of("text", "Scripted summary: see [" + ids.get(0) + "].", "evidenceIds", ids));
    }

    private static String sent(JsonNode request) {
        StringBuilder sb = new StringBuilder();
        request.path("messages").forEach(msg -> sb.append(msg.path("content").asText()).append('\n'));
        return sb.toString();
    }

    /** The purposes of the requests about {@code node}, in order: investigation requests carry tools. */
    private static List<String> purposesSentFor(ScriptedModelServer server, String node) {
        return server.requests().stream().filter(r -> sent(r).contains(node))
                .map(r -> r.has("tools") ? "investigate" : "summarise").toList();
    }

    /** Injects a fault in the sandbox and waits until its incident has concluded (left triaging); returns the incident. */
    private static JsonNode faultAndConclusion(ServiceProcess service, String fault, String node) throws IOException {
        HttpResponse<String> r = service.postJson("/api/v1/sandbox/faults", ADMIN, fault);
        assertEquals(202, r.statusCode(), r.body());
        assertTrue(json(r.body()).path("delivered").asBoolean(), r.body());
        String body = service.awaitBody("/api/v1/incidents?node=" + node, ADMIN, Duration.ofSeconds(60),
                b -> b.contains("\"family\":\"") && !b.contains("\"state\":\"triaging\""));
        return json(body).path("items").get(0);
    }

    /**
     * The incident once the summary asked for after its decision has been answered (or has failed):
     * the summary is written off the decision path, so the incident concludes first.
     */
    private static JsonNode summarised(ServiceProcess service, JsonNode incident) throws IOException {
        String id = incident.path("id").asText();
        service.await("the model's summary of " + id, Duration.ofSeconds(60), () -> audit(service, incident, "model.call").stream()
                .anyMatch(c -> c.path("payload").path("purpose").asText().equals("summarise")));
        HttpResponse<String> r = service.get("/api/v1/incidents/" + id, ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return json(r.body());
    }

    private static void assertTookOver(ServiceProcess service, JsonNode incident, String outcome) {
        List<JsonNode> calls = audit(service, incident, "model.call");
        assertFalse(calls.isEmpty(), "the failed call is audited");
        assertEquals(outcome, calls.get(calls.size() - 1).path("payload").path("outcome").asText(), calls.toString());
        assertTrue(audit(service, incident, "guardrail").stream().anyMatch(g -> g.path("payload").path("guard").asText().equals("fallback")),
                "the audit says the rules took over");
    }

    /** The triage's input tokens: the chat questions asked about the incident are not its cost. */
    private static long tokensIn(ServiceProcess service, JsonNode incident) {
        return audit(service, incident, "model.call").stream().filter(c -> !c.path("payload").path("purpose").asText().equals("chat"))
                .mapToLong(c -> c.path("payload").path("tokensIn").asLong()).sum();
    }

    private static List<JsonNode> audit(ServiceProcess service, JsonNode incident, String kind) {
        HttpResponse<String> r = service.get("/api/v1/audit?incident=" + incident.path("id").asText(), ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return StreamSupport.stream(json(r.body()).path("items").spliterator(), false)
                .filter(x -> x.path("kind").asText().equals(kind)).toList();
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
