package io.acceltriage.incident;

import java.util.List;

/**
 * Decides what an alert is about from its labels. Device alerts name a node (dcgm-exporter's
 * {@code Hostname} is mapped to {@code node} by the shipped rules; a few common alternatives are read
 * too); workload alerts name a pod or a workload.
 */
public final class Correlator {

    private static final List<String> NODE_LABELS = List.of("node", "kubernetes_node", "Hostname", "hostname", "exported_node");
    private static final List<String> WORKLOAD_LABELS = List.of("deployment", "statefulset", "jobset", "job_name", "daemonset", "leaderworkerset");

    private Correlator() {}

    public static Subject subjectOf(Alert alert) {
        String node = nodeOf(alert);
        String namespace = alert.label("namespace");
        String pod = alert.label("pod");
        boolean deviceAlert = alert.label("gpu") != null || alert.label("UUID") != null || alert.label("xid") != null
                || alert.name().startsWith("Gpu") || alert.name().startsWith("Dcgm") || alert.name().startsWith("Tpu");
        if (node != null && (deviceAlert || pod == null)) {
            return Subject.node(node);
        }
        if (namespace != null && pod != null) {
            return Subject.pod(namespace, pod);
        }
        for (String label : WORKLOAD_LABELS) {
            String workload = alert.label(label);
            if (namespace != null && workload != null) {
                return new Subject(Subject.Kind.WORKLOAD, namespace, label + "/" + workload);
            }
        }
        return new Subject(Subject.Kind.ALERT, null, alert.name().isEmpty() ? alert.fingerprint() : alert.name());
    }

    public static String nodeOf(Alert alert) {
        for (String label : NODE_LABELS) {
            String v = alert.label(label);
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
