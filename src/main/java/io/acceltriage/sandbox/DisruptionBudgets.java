package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The disruption controller and the eviction check of the API server, for PodDisruptionBudgets: keeps
 * status (currentHealthy, desiredHealthy, disruptionsAllowed) true to the pods, and decides evictions.
 */
final class DisruptionBudgets {

    static final Kinds.Kind PDB = Kinds.of("policy/v1", "PodDisruptionBudget");
    static final Kinds.Kind POD = Kinds.of("v1", "Pod");

    /** What the eviction subresource answers. */
    record Verdict(boolean allowed, String budget, String cause) {
    }

    private final ObjectStore store;

    DisruptionBudgets(ObjectStore store) {
        this.store = store;
    }

    /** Recomputes the status of every budget in the namespace (all namespaces when null). */
    void refresh(String namespace) {
        for (ObjectNode pdb : store.list(PDB, namespace)) {
            ObjectNode updated = pdb.deepCopy();
            List<ObjectNode> pods = selectedPods(pdb);
            int expected = pods.size();
            int healthy = (int) pods.stream().filter(DisruptionBudgets::isReady).count();
            int desired = desiredHealthy(pdb.path("spec"), expected);
            ObjectNode status = updated.with("status");
            status.put("observedGeneration", pdb.path("metadata").path("generation").asLong(1));
            status.put("expectedPods", expected);
            status.put("currentHealthy", healthy);
            status.put("desiredHealthy", desired);
            status.put("disruptionsAllowed", Math.max(0, healthy - desired));
            ArrayNode conditions = status.putArray("conditions");
            ObjectNode condition = conditions.addObject();
            condition.put("type", "DisruptionAllowed");
            boolean allowed = healthy - desired > 0;
            condition.put("status", allowed ? "True" : "False");
            condition.put("reason", allowed ? "SufficientPods" : "InsufficientPods");
            condition.put("message", "");
            condition.put("observedGeneration", pdb.path("metadata").path("generation").asLong(1));
            condition.put("lastTransitionTime", pdb.path("status").path("conditions").path(0)
                    .path("status").asText().equals(condition.path("status").asText())
                            ? pdb.path("status").path("conditions").path(0).path("lastTransitionTime")
                                    .asText(now())
                            : now());
            if (!updated.equals(pdb)) {
                store.replace(updated);
            }
        }
    }

    /**
     * The API server's eviction check: a budget that selects the pod must allow a disruption, except that
     * an unready pod may go while the budget is met (unhealthyPodEvictionPolicy IfHealthyBudget, the
     * default) or always (AlwaysAllow).
     */
    Verdict check(JsonNode pod) {
        String namespace = pod.path("metadata").path("namespace").asText();
        List<ObjectNode> budgets = store.list(PDB, namespace).stream()
                .filter(pdb -> selector(pdb).test(pod))
                .toList();
        if (budgets.isEmpty()) {
            return new Verdict(true, null, null);
        }
        ObjectNode pdb = budgets.get(0);
        JsonNode status = pdb.path("status");
        String name = pdb.path("metadata").path("name").asText();
        int healthy = status.path("currentHealthy").asInt();
        int desired = status.path("desiredHealthy").asInt();
        if (!isReady(pod)) {
            String policy = pdb.path("spec").path("unhealthyPodEvictionPolicy").asText("IfHealthyBudget");
            if (policy.equals("AlwaysAllow") || healthy >= desired) {
                return new Verdict(true, name, null);
            }
        }
        if (status.path("disruptionsAllowed").asInt() <= 0) {
            return new Verdict(false, name, "The disruption budget " + name + " needs " + desired
                    + " healthy pods and has " + healthy + " currently");
        }
        return new Verdict(true, name, null);
    }

    /** Records an allowed disruption, as the API server does before the pod is gone. */
    void recordDisruption(String namespace, String budget, String pod) {
        if (budget == null) {
            return;
        }
        store.get(PDB, namespace, budget).ifPresent(pdb -> {
            ObjectNode status = pdb.with("status");
            status.put("disruptionsAllowed", Math.max(0, status.path("disruptionsAllowed").asInt() - 1));
            status.with("disruptedPods").put(pod, now());
            store.replace(pdb);
        });
    }

    static boolean isReady(JsonNode pod) {
        if (!pod.path("metadata").path("deletionTimestamp").isMissingNode()) {
            return false;
        }
        for (JsonNode c : pod.path("status").path("conditions")) {
            if (c.path("type").asText().equals("Ready")) {
                return c.path("status").asText().equals("True");
            }
        }
        return false;
    }

    private List<ObjectNode> selectedPods(JsonNode pdb) {
        Predicate<JsonNode> selected = selector(pdb);
        return store.list(POD, pdb.path("metadata").path("namespace").asText()).stream()
                .filter(selected)
                .toList();
    }

    private static Predicate<JsonNode> selector(JsonNode pdb) {
        JsonNode matchLabels = pdb.path("spec").path("selector").path("matchLabels");
        if (!matchLabels.isObject() || matchLabels.isEmpty()) {
            // an empty selector in policy/v1 selects every pod of the namespace
            return p -> true;
        }
        String selector = stream(matchLabels).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
        return Selectors.labels(selector);
    }

    private static Map<String, String> stream(JsonNode object) {
        return ObjectStore.JSON.convertValue(object,
                ObjectStore.JSON.getTypeFactory().constructMapType(Map.class, String.class, String.class));
    }

    private static int desiredHealthy(JsonNode spec, int expected) {
        if (spec.has("minAvailable")) {
            return scaled(spec.path("minAvailable"), expected, true);
        }
        if (spec.has("maxUnavailable")) {
            return Math.max(0, expected - scaled(spec.path("maxUnavailable"), expected, false));
        }
        return expected;
    }

    private static int scaled(JsonNode value, int expected, boolean roundUp) {
        String text = value.asText();
        if (text.endsWith("%")) {
            double fraction = Integer.parseInt(text.substring(0, text.length() - 1)) / 100.0;
            return (int) (roundUp ? Math.ceil(fraction * expected) : Math.floor(fraction * expected));
        }
        return value.asInt();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
