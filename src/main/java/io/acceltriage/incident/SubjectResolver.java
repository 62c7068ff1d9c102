package io.acceltriage.incident;

import io.acceltriage.cluster.Membership;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Works out what an alert is about: its labels first, then the cluster (read-only) for what labels
 * do not say — a pod's node and its top-level owner, and the gangs that run on an alerted node. A gang
 * (JobSet, PyTorchJob, LeaderWorkerSet, an indexed parallel Job…) becomes the subject of its members'
 * alerts, so a fault that stalls every worker is one incident. An API server that cannot answer only
 * narrows correlation to what the labels say; it never loses the alert.
 */
public final class SubjectResolver {

    private final Membership cluster;

    /** Labels whose values never name a workload. */
    private static final Set<String> NOT_NAMES = Set.of("alertname", "severity", "namespace", "prometheus", "instance", "endpoint",
            "service", "container", "receiver", "team");

    public SubjectResolver(Membership cluster) {
        this.cluster = cluster;
    }

    public About resolve(Alert alert) {
        Subject subject = Correlator.subjectOf(alert);
        String node = Correlator.nodeOf(alert);
        Set<String> keys = new LinkedHashSet<>();
        keys.add(subject.key());
        String namespace = alert.label("namespace");
        String podName = alert.label("pod");
        if (subject.kind() == Subject.Kind.WORKLOAD) {
            String[] kindName = subject.name().split("/", 2);
            String kind = normalKind(kindName[0]);
            keys.add(About.workloadKey(subject.namespace(), kind, kindName[1]));
            // A Job named by its label may be one replicated job of a JobSet: the gang is the subject.
            if ("job".equals(kind)) {
                Membership.Workload top = cluster.topOfJob(subject.namespace(), kindName[1]).orElse(null);
                if (top != null && top.gang()) {
                    keys.add(key(top));
                    subject = new Subject(Subject.Kind.WORKLOAD, subject.namespace(), top.kind().toLowerCase(Locale.ROOT) + "/" + top.name());
                    keys.add(subject.key());
                }
            }
        }
        if (subject.kind() == Subject.Kind.ALERT && namespace != null) {
            // No label this build knows names the workload, yet one may, under a name of the alert's own (a rule's `job`,
            // `workload`): a value that is a workload of the namespace, as the cluster shows it, is its subject.
            List<String> values = alert.labels().entrySet().stream().filter(e -> !NOT_NAMES.contains(e.getKey()))
                    .map(java.util.Map.Entry::getValue).filter(v -> v != null && !v.isBlank()).distinct().toList();
            Optional<Membership.Workload> named = cluster.workloadNamed(namespace, values);
            if (named.isPresent()) {
                subject = new Subject(Subject.Kind.WORKLOAD, namespace, named.get().kind().toLowerCase(Locale.ROOT) + "/" + named.get().name());
                keys.add(subject.key());
                keys.add(key(named.get()));
            }
        }
        if (namespace != null && podName != null) {
            keys.add(About.podKey(namespace, podName));
            Membership.PodPlace pod = cluster.pod(namespace, podName).orElse(null);
            if (pod != null) {
                if (node == null) node = pod.node();
                Membership.Workload top = pod.top();
                if (top != null && !"DaemonSet".equals(top.kind())) {
                    keys.add(key(top));
                    if (top.gang() && subject.kind() == Subject.Kind.POD) {
                        subject = new Subject(Subject.Kind.WORKLOAD, namespace, top.kind().toLowerCase(Locale.ROOT) + "/" + top.name());
                        keys.add(subject.key());
                    }
                }
            }
        }
        if (node != null) {
            keys.add(About.nodeKey(node));
            if (subject.kind() == Subject.Kind.NODE) {
                keys.addAll(gangsOn(node));
            }
        }
        return new About(subject, node, keys);
    }

    /** Workload keys of the gangs with a member on the node: a device fault there stalls all of them. */
    private Set<String> gangsOn(String node) {
        Set<String> out = new LinkedHashSet<>();
        for (Membership.Workload gang : cluster.gangsOn(node)) out.add(key(gang));
        return out;
    }

    private static String key(Membership.Workload w) {
        return About.workloadKey(w.namespace(), w.kind().toLowerCase(Locale.ROOT), w.name());
    }

    /** Labels name workloads a little differently from owner kinds: one spelling for both. */
    private static String normalKind(String label) {
        return switch (label) {
            case "job_name" -> "job";
            case "lws" -> "leaderworkerset";
            default -> label.toLowerCase(Locale.ROOT);
        };
    }
}
