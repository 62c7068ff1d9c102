package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Serves what CRUD mode lacks in front of the CRUD dispatcher: pod logs, the eviction subresource,
 * full label and field selectors on lists, strategic-merge patches (as merge patches), the version
 * endpoint, and a hook that lets simulated controllers replace deleted pods.
 */
final class SandboxDispatcher extends Dispatcher {

    private static final Pattern LOG = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/log$");
    private static final Pattern EVICTION = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction$");
    private static final Pattern POD = Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)$");
    private static final Pattern SCALE = Pattern.compile("^(/apis/apps/v1/namespaces/([^/]+)/(deployments|statefulsets)/([^/]+))/scale$");

    private final ObjectStore store;
    private final PodLogs logs;
    private final DisruptionBudgets budgets;
    private volatile Consumer<ObjectNode> podDeleted = pod -> {
    };
    private volatile RequestGate gate = RequestGate.OPEN;
    private volatile Consumer<String> nodeWritten = node -> {
    };
    private static final Pattern NODE = Pattern.compile("^/api/v1/nodes/([^/]+)(/status)?$");
    private static final Pattern JOBS = Pattern.compile("^/apis/batch/v1/namespaces/([^/]+)/jobs$");
    private volatile java.util.function.BiConsumer<String, String> jobCreated = (ns, name) -> {
    };
    private volatile java.util.function.BiConsumer<String, String> written = (method, path) -> {
    };

    /** How many accepted writes {@link #writes()} keeps (the oldest go first). */
    static final int WRITES_KEPT = 10_000;
    private final java.util.Deque<String> writes = new java.util.ArrayDeque<>();

    SandboxDispatcher(ObjectStore store, PodLogs logs) {
        this.store = store;
        this.logs = logs;
        this.budgets = new DisruptionBudgets(store);
    }

    DisruptionBudgets budgets() {
        return budgets;
    }

    void onPodDeleted(Consumer<ObjectNode> listener) {
        this.podDeleted = listener;
    }

    /** Called with a node's name after a write to it: the simulated node agents watch their node. */
    void onNodeWritten(Consumer<String> listener) {
        this.nodeWritten = listener;
    }

    /** Called with a Job's namespace and name after it was created: the simulated Job controller runs it. */
    void onJobCreated(java.util.function.BiConsumer<String, String> listener) {
        this.jobCreated = listener;
    }

    /** Called with the method and path of every write that succeeded: the simulated node provisioners watch theirs. */
    void onWritten(java.util.function.BiConsumer<String, String> listener) {
        this.written = listener;
    }

    void gate(RequestGate gate) {
        this.gate = gate == null ? RequestGate.OPEN : gate;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        RequestGate g = gate;
        String method = request.getMethod();
        String path = request.getPath();
        if (!g.admit(method, path)) {
            return KubeStatus.failure(503, "ServiceUnavailable", "held and dropped by a test's request gate", null, null);
        }
        String bare = path.indexOf('?') < 0 ? path : path.substring(0, path.indexOf('?'));
        Matcher nodeWrite = NODE.matcher(bare);
        boolean nodeChange = (method.equals("PATCH") || method.equals("PUT")) && nodeWrite.matches() && nodeWrite.group(2) == null;
        Boolean wasFenced = nodeChange ? unschedulable(bare) : null;
        MockResponse response = handle(request);
        g.applied(method, path, response.code());
        java.time.Duration delay = g.delay(method, path);
        if (!delay.isZero()) response.setBodyDelay(delay);
        if (!method.equals("GET") && response.code() < 300 && !path.contains("dryRun=")) {
            String change = "";
            if (nodeChange) {
                Boolean fenced = unschedulable(bare);
                change = Boolean.FALSE.equals(wasFenced) && Boolean.TRUE.equals(fenced) ? " cordon"
                        : Boolean.TRUE.equals(wasFenced) && Boolean.FALSE.equals(fenced) ? " uncordon" : "";
            }
            remember(method + " " + bare + change);
        }
        if ((method.equals("PATCH") || method.equals("PUT")) && response.code() < 300) {
            int q = path.indexOf('?');
            Matcher node = NODE.matcher(q < 0 ? path : path.substring(0, q));
            if (node.matches()) nodeWritten.accept(node.group(1));
        }
        if (!method.equals("GET") && response.code() < 300 && !path.contains("dryRun=")) {
            int q = path.indexOf('?');
            written.accept(method, q < 0 ? path : path.substring(0, q));
        }
        if (method.equals("POST") && response.code() < 300) {
            int q = path.indexOf('?');
            Matcher jobs = JOBS.matcher(q < 0 ? path : path.substring(0, q));
            if (jobs.matches() && !path.contains("dryRun=")) {
                String name = ObjectStore.parse(new String(response.getBody().getBytes(), StandardCharsets.UTF_8)).path("metadata").path("name").asText("");
                if (!name.isEmpty()) jobCreated.accept(jobs.group(1), name);
            }
        }
        return response;
    }

    /** The writes accepted so far, oldest first: {@code METHOD path}, and for a node whose spec.unschedulable flipped, " cordon" or " uncordon". */
    java.util.List<String> writes() {
        synchronized (writes) {
            return java.util.List.copyOf(writes);
        }
    }

    private void remember(String write) {
        synchronized (writes) {
            if (writes.size() == WRITES_KEPT) writes.removeFirst();
            writes.addLast(write);
        }
    }

    /** Whether the node is cordoned; null when there is no such node. */
    private Boolean unschedulable(String nodePath) {
        MockResponse current = store.locked(() -> crud().handleGet(nodePath));
        if (current.code() != 200) return null;
        return ObjectStore.parse(current.getBody().readUtf8()).path("spec").path("unschedulable").asBoolean(false);
    }

    private MockResponse handle(RecordedRequest request) {
        String full = request.getPath();
        int q = full.indexOf('?');
        String path = q < 0 ? full : full.substring(0, q);
        Map<String, String> query = query(q < 0 ? "" : full.substring(q + 1));
        String method = request.getMethod();
        try {
            if (method.equals("GET") && path.equals("/version")) {
                return KubeStatus.json(200, VERSION);
            }
            // A server-side dry run validates and persists nothing: answer with the object as it stands.
            Matcher evicted = EVICTION.matcher(path);
            boolean dryRun = !method.equals("GET") && ("All".equals(query.get("dryRun"))
                    || (method.equals("POST") && evicted.matches() && request.getUtf8Body().contains("\"All\"")));
            if (dryRun) {
                String target = evicted.matches() ? "/api/v1/namespaces/" + evicted.group(1) + "/pods/" + evicted.group(2) : path;
                MockResponse current = store.locked(() -> crud().handleGet(target));
                return current.code() == 200 && evicted.matches() ? KubeStatus.success(201) : current;
            }
            Matcher m = SCALE.matcher(path);
            if (m.matches()) {
                return scale(request, m.group(1), m.group(2), m.group(4));
            }
            m = LOG.matcher(path);
            if (method.equals("GET") && m.matches()) {
                return log(m.group(1), m.group(2), query);
            }
            m = EVICTION.matcher(path);
            if (method.equals("POST") && m.matches()) {
                return evict(m.group(1), m.group(2));
            }
            m = POD.matcher(path);
            if (method.equals("DELETE") && m.matches()) {
                return deletePod(request, m.group(1), m.group(2));
            }
            if (method.equals("PATCH")) {
                return store.locked(() -> crud().dispatch(asMergePatch(request)));
            }
            if (method.equals("GET") && !"true".equals(query.get("watch"))
                    && (query.containsKey("labelSelector") || query.containsKey("fieldSelector"))) {
                return filteredList(path, query);
            }
            return store.locked(() -> crud().dispatch(request));
        } catch (IllegalArgumentException e) {
            return KubeStatus.failure(400, "BadRequest", e.getMessage(), null, null);
        }
    }

    /**
     * The scale subresource, as the real API server serves it: an {@code autoscaling/v1} Scale read from, and written
     * to, the workload's {@code spec.replicas}. Scaling this way needs only {@code deployments/scale}, not the right to
     * patch the whole Deployment (its image among the rest).
     */
    private MockResponse scale(RecordedRequest request, String objectPath, String namespace, String name) {
        String method = request.getMethod();
        if (method.equals("PUT") || method.equals("PATCH")) {
            JsonNode replicas = ObjectStore.parse(request.getBody().readUtf8()).path("spec").path("replicas");
            if (!replicas.isInt() || replicas.asInt() < 0) {
                return KubeStatus.failure(422, "Invalid", "spec.replicas must be a non-negative integer", null, null);
            }
            Headers headers = request.getHeaders().newBuilder().set("Content-Type", "application/merge-patch+json").build();
            RecordedRequest patch = new RecordedRequest(request.getHttpVersion(), io.fabric8.mockwebserver.dsl.HttpMethod.PATCH,
                    objectPath, headers, new io.fabric8.mockwebserver.http.Buffer(
                            ("{\"spec\":{\"replicas\":" + replicas.asInt() + "}}").getBytes(StandardCharsets.UTF_8)));
            MockResponse patched = store.locked(() -> crud().dispatch(patch));
            if (patched.code() >= 300) {
                return patched;
            }
        } else if (!method.equals("GET")) {
            return KubeStatus.failure(405, "MethodNotAllowed", method + " is not supported on the scale subresource", null, null);
        }
        MockResponse current = store.locked(() -> crud().handleGet(objectPath));
        if (current.code() != 200) {
            return current;
        }
        ObjectNode workload = ObjectStore.parse(current.getBody().readUtf8());
        ObjectNode scale = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode()
                .put("apiVersion", "autoscaling/v1").put("kind", "Scale");
        scale.putObject("metadata").put("name", name).put("namespace", namespace)
                .put("resourceVersion", workload.path("metadata").path("resourceVersion").asText(""));
        scale.putObject("spec").put("replicas", workload.path("spec").path("replicas").asInt(1));
        scale.putObject("status").put("replicas", workload.path("status").path("replicas").asInt(0));
        return KubeStatus.json(200, scale.toString());
    }

    private KubernetesCrudDispatcher crud() {
        return store.crud();
    }

    private MockResponse log(String namespace, String name, Map<String, String> query) {
        Optional<ObjectNode> pod = store.get(DisruptionBudgets.POD, namespace, name);
        if (pod.isEmpty()) {
            return KubeStatus.failure(404, "NotFound", "pods \"" + name + "\" not found", "pods", name);
        }
        JsonNode containers = pod.get().path("spec").path("containers");
        String container = query.get("container");
        if (container == null || container.isEmpty()) {
            if (containers.size() != 1) {
                StringBuilder names = new StringBuilder();
                containers.forEach(c -> names.append(names.isEmpty() ? "" : " ").append(c.path("name").asText()));
                return KubeStatus.failure(400, "BadRequest", "a container name must be specified for pod " + name
                        + ", choose one of: [" + names + "]", null, null);
            }
            container = containers.get(0).path("name").asText();
        }
        boolean known = false;
        for (JsonNode c : containers) {
            known |= c.path("name").asText().equals(container);
        }
        for (JsonNode c : pod.get().path("spec").path("initContainers")) {
            known |= c.path("name").asText().equals(container);
        }
        if (!known) {
            return KubeStatus.failure(400, "BadRequest", "container " + container + " is not valid for pod " + name,
                    null, null);
        }
        boolean previous = "true".equals(query.get("previous"));
        Optional<String> text = logs.get(namespace, name, container, previous);
        if (text.isEmpty()) {
            String message = previous
                    ? "previous terminated container \"" + container + "\" in pod \"" + name + "\" not found"
                    : "container \"" + container + "\" in pod \"" + name + "\" is waiting to start: "
                            + waitingReason(pod.get(), container);
            return KubeStatus.failure(400, "BadRequest", message, null, null);
        }
        String body = PodLogs.cut(text.get(), integer(query.get("tailLines")), integer(query.get("limitBytes")));
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "text/plain").setBody(body);
    }

    private static String waitingReason(JsonNode pod, String container) {
        for (JsonNode s : pod.path("status").path("containerStatuses")) {
            if (s.path("name").asText().equals(container)) {
                return s.path("state").path("waiting").path("reason").asText("ContainerCreating");
            }
        }
        return "ContainerCreating";
    }

    private MockResponse evict(String namespace, String name) {
        Optional<ObjectNode> pod = store.get(DisruptionBudgets.POD, namespace, name);
        if (pod.isEmpty()) {
            return KubeStatus.failure(404, "NotFound", "pods \"" + name + "\" not found", "pods", name);
        }
        DisruptionBudgets.Verdict verdict = budgets.check(pod.get());
        if (!verdict.allowed()) {
            ObjectNode status = ObjectStore.parse(KubeStatus.failure(429, "TooManyRequests",
                    "Cannot evict pod as it would violate the pod's disruption budget.", null, null)
                    .getBody().readUtf8());
            ArrayNode causes = status.putObject("details").putArray("causes");
            causes.addObject().put("reason", "DisruptionBudget").put("message", verdict.cause());
            return KubeStatus.json(429, status.toString());
        }
        budgets.recordDisruption(namespace, verdict.budget(), name);
        store.delete(DisruptionBudgets.POD, namespace, name);
        logs.removePod(namespace, name);
        podDeleted.accept(pod.get());
        return KubeStatus.success(201);
    }

    private MockResponse deletePod(RecordedRequest request, String namespace, String name) {
        Optional<ObjectNode> pod = store.get(DisruptionBudgets.POD, namespace, name);
        MockResponse response = store.locked(() -> crud().dispatch(request));
        if (pod.isPresent() && response.code() == 200
                && store.get(DisruptionBudgets.POD, namespace, name).isEmpty()) {
            logs.removePod(namespace, name);
            podDeleted.accept(pod.get());
        }
        return response;
    }

    /**
     * The CRUD server knows JSON Patch and JSON merge patch only. kubectl cordon/drain and many clients
     * send strategic merge patches; for the maps and scalars they touch (spec.unschedulable, labels,
     * taints replaced whole) a merge patch has the same effect.
     */
    private static RecordedRequest asMergePatch(RecordedRequest request) {
        String type = request.getHeader("Content-Type");
        if (type == null || !(type.contains("strategic-merge-patch") || type.contains("apply-patch"))) {
            return request;
        }
        Headers headers = request.getHeaders().newBuilder()
                .set("Content-Type", "application/merge-patch+json").build();
        return new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(), headers,
                request.getBody());
    }

    private MockResponse filteredList(String path, Map<String, String> query) {
        Predicate<JsonNode> labels = Selectors.labels(query.get("labelSelector"));
        Predicate<JsonNode> fields = Selectors.fields(query.get("fieldSelector"));
        MockResponse all = store.locked(() -> crud().handleGet(path));
        if (all.code() != 200) {
            return all;
        }
        ObjectNode list = ObjectStore.parse(all.getBody().readUtf8());
        ArrayNode kept = ObjectStore.JSON.createArrayNode();
        for (JsonNode item : list.path("items")) {
            if (labels.test(item) && fields.test(item)) {
                kept.add(item);
            }
        }
        list.set("items", kept);
        return KubeStatus.json(200, list.toString());
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.put(key, value);
        }
        return params;
    }

    private static Integer integer(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: " + value);
        }
    }

    private static final String VERSION = """
            {"major":"1","minor":"33","gitVersion":"v1.33.5","gitCommit":"sandbox","gitTreeState":"clean",\
            "buildDate":"2026-10-01T00:00:00Z","goVersion":"go1.24.6","compiler":"gc","platform":"linux/amd64"}""";
}
