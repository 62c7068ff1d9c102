package io.acceltriage.scenario;

import static io.acceltriage.cluster.Owners.controllerOf;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.acceltriage.cluster.Owners;
import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.NodeAgents;
import io.acceltriage.evidence.NodeSamples;
import io.acceltriage.evidence.Redactor;
import io.acceltriage.evidence.Sample;
import io.acceltriage.incident.Subject;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Snapshots the live cluster around a subject into a scenario file (format version 1), so a real
 * incident can be replayed by {@code eval} later: the node and a few pool neighbours, the pods on the
 * node with their owner chains, the subject's workload pods, the events of all of these, current and
 * previous logs of the containers that matter (bounded), the exporter scrape, and an alert. Read-only.
 *
 * <p>Secrets never leave the cluster: Secret objects are never read, managedFields and
 * last-applied-configuration are dropped, env values from secrets stay references, env vars whose
 * name says credential are redacted, and logs and event messages go through {@link Redactor}.
 */
public final class Capture {

    /** Marks an expectation nobody filled in yet: {@code eval} fails such a scenario instead of passing it. */
    public static final String PLACEHOLDER = "# acceltriage capture: placeholder expectation, not yet filled in";

    static final int MAX_NEIGHBOURS = 3;
    static final int MAX_WORKLOAD_PODS = 16;
    static final int MAX_LOGS = 24;
    static final int LOG_TAIL_LINES = 300;
    static final int LOG_MAX_BYTES = 64 * 1024;
    private static final Set<String> DROPPED_ANNOTATIONS = Set.of("kubectl.kubernetes.io/last-applied-configuration",
            "deployment.kubernetes.io/desired-replicas", "control-plane.alpha.kubernetes.io/leader");

    private final KubernetesClient client;
    private final MetricsSource metrics;
    private final NodeAgents nodeAgents;
    private final Owners owners;

    public Capture(KubernetesClient client, MetricsSource metrics, NodeAgents nodeAgents) {
        this.owners = new Owners(client);
        this.client = client;
        this.metrics = metrics;
        this.nodeAgents = nodeAgents;
    }

    /** The scenario text for the subject (a node or a pod); {@code alertname} may be null. */
    public String capture(Subject subject, String alertname, Instant now) {
        Map<String, HasMetadata> objects = new LinkedHashMap<>();
        List<Pod> focus = new ArrayList<>();
        String nodeName;
        if (subject.kind() == Subject.Kind.POD) {
            Pod pod = client.pods().inNamespace(subject.namespace()).withName(subject.name()).get();
            if (pod == null) {
                throw new IllegalArgumentException("pod " + subject.namespace() + "/" + subject.name()
                        + " not found: check the name with kubectl get pod -n " + subject.namespace());
            }
            focus.add(pod);
            nodeName = pod.getSpec().getNodeName();
        } else if (subject.kind() == Subject.Kind.NODE) {
            nodeName = subject.name();
        } else {
            throw new IllegalArgumentException("capture takes a node or a pod, not " + subject.key());
        }

        Node node = nodeName == null ? null : client.nodes().withName(nodeName).get();
        if (subject.kind() == Subject.Kind.NODE && node == null) {
            throw new IllegalArgumentException("node " + nodeName + " not found: check the name with kubectl get nodes");
        }
        if (node != null) {
            put(objects, node);
            String pool = nodeAgents.poolOf(labels(node));
            if (pool != null) {
                int n = 0;
                for (Node other : client.nodes().list().getItems()) {
                    if (n >= MAX_NEIGHBOURS) break;
                    if (!other.getMetadata().getName().equals(nodeName) && pool.equals(nodeAgents.poolOf(labels(other)))) {
                        put(objects, other);
                        n++;
                    }
                }
            }
        }

        List<Pod> pods = new ArrayList<>(focus);
        if (nodeName != null) {
            for (Pod p : client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
                if (nodeName.equals(p.getSpec().getNodeName()) && pods.stream().noneMatch(q -> same(p, q))) pods.add(p);
            }
        }
        // The subject's workload: its other pods, wherever they run (a gang's members, a Deployment's replicas).
        for (Pod f : focus) {
            List<HasMetadata> chain = owners.chainOf(f);
            if (chain.isEmpty()) continue;
            String top = chain.get(chain.size() - 1).getMetadata().getUid();
            int n = 0;
            for (Pod p : client.pods().inNamespace(f.getMetadata().getNamespace()).list().getItems()) {
                if (n >= MAX_WORKLOAD_PODS) break;
                List<HasMetadata> theirs = owners.chainOf(p);
                if (!theirs.isEmpty() && top != null && top.equals(theirs.get(theirs.size() - 1).getMetadata().getUid())
                        && pods.stream().noneMatch(q -> same(p, q))) {
                    pods.add(p);
                    n++;
                }
            }
        }
        for (Pod p : pods) {
            put(objects, p);
            for (HasMetadata owner : owners.chainOf(p)) put(objects, owner);
        }
        addNodeAgentRevisions(objects);
        addDisruptionBudgets(objects, pods);
        addEvents(objects);

        Map<String, String> logs = logsOf(pods, focus);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("alert", alert(subject, nodeName, alertname, now));
        List<Map<String, Object>> sanitised = new ArrayList<>();
        objects.values().forEach(o -> sanitised.add(Sanitiser.object(o)));
        spec.put("objects", sanitised);
        if (!logs.isEmpty()) spec.put("logs", logs);
        Map<String, Object> scrape = nodeName == null ? null : scrape(nodeName);
        if (scrape != null) spec.put("metrics", scrape);

        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("apiVersion", "acceltriage.io/v1");
        doc.put("kind", "Scenario");
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmm").withZone(ZoneOffset.UTC).format(now);
        doc.put("metadata", Map.of("name", ("capture-" + (nodeName != null ? nodeName : subject.name()) + "-" + stamp)
                .toLowerCase().replaceAll("[^a-z0-9-]", "-"),
                "description", "Captured from the live cluster around " + subject.key() + " at " + now
                        + ". Describe what happened here."));
        doc.put("spec", spec);
        return yaml(doc) + "  expect:\n"
                + "    # Set by the operator who knows the outcome: infrastructure | device | application | none,\n"
                + "    # and the actions a good first responder takes (docs/SCENARIO-FORMAT.md); then delete the next line.\n"
                + "    " + PLACEHOLDER + "\n"
                + "    family: none\n";
    }

    private static Map<String, Object> alert(Subject subject, String node, String alertname, Instant now) {
        Map<String, String> labels = new TreeMap<>();
        labels.put("alertname", alertname == null || alertname.isBlank() ? "AcceltriageCapture" : alertname);
        if (node != null) labels.put("node", node);
        if (subject.kind() == Subject.Kind.POD) {
            labels.put("namespace", subject.namespace());
            labels.put("pod", subject.name());
        }
        labels.put("severity", "warning");
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("status", "firing");
        a.put("labels", labels);
        a.put("annotations", Map.of("summary", "captured around " + subject.key()));
        a.put("startsAt", now.toString());
        a.put("endsAt", "0001-01-01T00:00:00Z");
        return a;
    }

    /** Revisions of the captured node-agent DaemonSets: they tell a rollout from a fault. */
    private void addNodeAgentRevisions(Map<String, HasMetadata> objects) {
        Set<String> daemonSets = new LinkedHashSet<>();
        objects.values().stream().filter(o -> "DaemonSet".equals(o.getKind()))
                .forEach(o -> daemonSets.add(o.getMetadata().getNamespace() + "/" + o.getMetadata().getName()));
        for (String ds : daemonSets) {
            String[] nsName = ds.split("/", 2);
            try {
                client.apps().controllerRevisions().inNamespace(nsName[0]).list().getItems().stream()
                        .filter(r -> controllerOf(r) != null && "DaemonSet".equals(controllerOf(r).getKind())
                                && nsName[1].equals(controllerOf(r).getName()))
                        .forEach(r -> put(objects, r));
            } catch (KubernetesClientException e) {
                // not visible: the DaemonSet itself is captured
            }
        }
    }

    private void addDisruptionBudgets(Map<String, HasMetadata> objects, List<Pod> pods) {
        Set<String> namespaces = new LinkedHashSet<>();
        for (Pod p : pods) {
            if (controllerOf(p) == null || !"DaemonSet".equals(controllerOf(p).getKind())) namespaces.add(p.getMetadata().getNamespace());
        }
        for (String ns : namespaces) {
            try {
                client.policy().v1().podDisruptionBudget().inNamespace(ns).list().getItems().forEach(b -> put(objects, b));
            } catch (KubernetesClientException e) {
                // not visible: replay then sees no budget, which the policy treats with care
            }
        }
    }

    private void addEvents(Map<String, HasMetadata> objects) {
        Set<String> involved = new LinkedHashSet<>();
        objects.values().forEach(o -> involved.add(o.getKind() + "/" + o.getMetadata().getName()));
        List<Event> events;
        try {
            events = client.v1().events().inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            return;
        }
        for (Event e : events) {
            if (e.getInvolvedObject() != null && involved.contains(e.getInvolvedObject().getKind() + "/" + e.getInvolvedObject().getName())) {
                e.setMessage(Redactor.scrub(e.getMessage()));
                put(objects, e);
            }
        }
    }

    /** Current and previous logs of the containers triage reads: the subject's, node agents', accelerator pods', troubled ones. */
    private Map<String, String> logsOf(List<Pod> pods, List<Pod> focus) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Pod p : pods) {
            String ns = p.getMetadata().getNamespace();
            String name = p.getMetadata().getName();
            OwnerReference c = controllerOf(p);
            boolean agent = nodeAgents.roleOf(name, c == null ? null : c.getKind(), c == null ? null : c.getName()).nodeAgent();
            boolean relevant = agent || focus.stream().anyMatch(f -> same(f, p)) || acceleratorPod(p);
            if (!relevant) continue;
            List<ContainerStatus> statuses = p.getStatus() == null || p.getStatus().getContainerStatuses() == null ? List.of()
                    : p.getStatus().getContainerStatuses();
            for (var container : p.getSpec().getContainers()) {
                if (out.size() >= MAX_LOGS) return out;
                String key = ns + "/" + name + "/" + container.getName();
                read(ns, name, container.getName(), false).ifPresent(t -> out.put(key, t));
                boolean restarted = statuses.stream().anyMatch(s -> container.getName().equals(s.getName())
                        && (s.getRestartCount() != null && s.getRestartCount() > 0 || s.getLastState() != null
                                && s.getLastState().getTerminated() != null));
                if (restarted) read(ns, name, container.getName(), true).ifPresent(t -> out.put(key + "#previous", t));
            }
        }
        return out;
    }

    private java.util.Optional<String> read(String ns, String pod, String container, boolean previous) {
        try {
            var log = client.pods().inNamespace(ns).withName(pod).inContainer(container).withReadyWaitTimeout(0);
            String text = previous ? log.terminated().tailingLines(LOG_TAIL_LINES).getLog()
                    : log.limitBytes(LOG_MAX_BYTES).tailingLines(LOG_TAIL_LINES).getLog();
            if (text != null && text.length() > LOG_MAX_BYTES) text = text.substring(text.length() - LOG_MAX_BYTES);
            return text == null || text.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(Redactor.scrub(text));
        } catch (KubernetesClientException e) {
            return java.util.Optional.empty(); // no such log (never restarted, rotated away): nothing to keep
        }
    }

    private boolean acceleratorPod(Pod p) {
        for (var c : p.getSpec().getContainers()) {
            if (c.getResources() == null) continue;
            for (String r : nodeAgents.acceleratorResources()) {
                if (c.getResources().getLimits() != null && c.getResources().getLimits().containsKey(r)
                        || c.getResources().getRequests() != null && c.getResources().getRequests().containsKey(r)) {
                    return true;
                }
            }
        }
        return false;
    }

    private Map<String, Object> scrape(String node) {
        NodeSamples samples;
        try {
            samples = metrics.read(node);
        } catch (MetricsSource.EvidenceUnavailable e) {
            return null; // the replay then sees the exporter down, as it was
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("now", exposition(samples.now()));
        if (samples.tenMinutesAgo() != null && !samples.tenMinutesAgo().isEmpty()) {
            m.put("tenMinutesAgo", exposition(samples.tenMinutesAgo()));
        }
        return m;
    }

    /** Samples back in the Prometheus text format, as the exporter served them. */
    static String exposition(List<Sample> samples) {
        StringBuilder sb = new StringBuilder();
        for (Sample s : samples) {
            sb.append(s.name());
            if (!s.labels().isEmpty()) {
                sb.append('{');
                boolean first = true;
                for (var e : new TreeMap<>(s.labels()).entrySet()) {
                    if (!first) sb.append(',');
                    first = false;
                    sb.append(e.getKey()).append("=\"").append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"")
                            .replace("\n", "\\n")).append('"');
                }
                sb.append('}');
            }
            double v = s.value();
            sb.append(' ').append(v == Math.rint(v) && !Double.isInfinite(v) ? String.valueOf((long) v) : String.valueOf(v)).append('\n');
        }
        return sb.toString();
    }

    private static void put(Map<String, HasMetadata> objects, HasMetadata o) {
        if ("Secret".equals(o.getKind())) return; // never, whatever points at it
        objects.putIfAbsent(o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(), o);
    }

    private static boolean same(Pod a, Pod b) {
        return a.getMetadata().getNamespace().equals(b.getMetadata().getNamespace())
                && a.getMetadata().getName().equals(b.getMetadata().getName());
    }

    private static Map<String, String> labels(HasMetadata o) {
        return o.getMetadata().getLabels() == null ? Map.of() : o.getMetadata().getLabels();
    }

    private static String yaml(Map<String, Object> doc) {
        ObjectMapper mapper = new ObjectMapper(YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
                .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS).build());
        try {
            return mapper.writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the scenario: " + e.getMessage(), e);
        }
    }

    /** Objects as plain maps, with what must not leave the cluster taken out. */
    static final class Sanitiser {
        private Sanitiser() {}

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(HasMetadata o) {
            Map<String, Object> map = Serialization.jsonMapper().convertValue(o, Map.class);
            if (map.get("metadata") instanceof Map<?, ?> md) {
                Map<String, Object> metadata = (Map<String, Object>) md;
                metadata.remove("managedFields");
                metadata.remove("resourceVersion");
                if (metadata.get("annotations") instanceof Map<?, ?> ann) {
                    ((Map<String, Object>) ann).keySet().removeIf(k -> DROPPED_ANNOTATIONS.contains(k) || k.contains("last-applied"));
                    if (((Map<?, ?>) ann).isEmpty()) metadata.remove("annotations");
                }
            }
            scrub(map);
            return map;
        }

        /** Every {@code env} list anywhere (pods, templates, revisions): references stay, credential values go. */
        @SuppressWarnings("unchecked")
        private static void scrub(Object node) {
            if (node instanceof Map<?, ?> m) {
                Map<String, Object> map = (Map<String, Object>) m;
                if (map.get("env") instanceof List<?> env) {
                    for (Object e : env) {
                        if (!(e instanceof Map<?, ?> var)) continue;
                        Map<String, Object> v = (Map<String, Object>) var;
                        String name = String.valueOf(v.get("name"));
                        if (v.containsKey("valueFrom")) {
                            v.remove("value");
                        } else if (v.get("value") != null && Redactor.sensitiveName(name)) {
                            v.put("value", Redactor.marker("env"));
                        } else if (v.get("value") instanceof String s) {
                            v.put("value", Redactor.scrub(s));
                        }
                    }
                }
                if (map.get("args") instanceof List<?> || map.get("command") instanceof List<?>) {
                    for (String k : List.of("args", "command")) {
                        if (map.get(k) instanceof List<?> l) {
                            map.put(k, l.stream().map(x -> x instanceof String s ? Redactor.scrub(s) : x).toList());
                        }
                    }
                }
                map.values().forEach(Sanitiser::scrub);
            } else if (node instanceof List<?> l) {
                l.forEach(Sanitiser::scrub);
            }
        }
    }
}
