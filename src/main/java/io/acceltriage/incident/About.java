package io.acceltriage.incident;

import java.util.Set;

/**
 * What one alert is about, as far as correlation can tell: the incident subject it would open, the
 * node it concerns (when known) and the correlation keys ({@code node:…}, {@code pod:…},
 * {@code workload:…}, {@code fleet:…}) by which it joins an open incident that shares any of them.
 */
public record About(Subject subject, String node, Set<String> keys) {

    public About {
        keys = Set.copyOf(keys);
    }

    static String nodeKey(String node) {
        return "node:" + node;
    }

    static String podKey(String namespace, String pod) {
        return "pod:" + namespace + "/" + pod;
    }

    /** {@code kind} in lower case, as workload subjects name it ("jobset", "deployment", "job"). */
    static String workloadKey(String namespace, String kind, String name) {
        return "workload:" + namespace + "/" + kind + "/" + name;
    }

    static String fleetKey(String alertname) {
        return "fleet:" + alertname;
    }
}
