package io.acceltriage.incident;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which incident an alert joins. Alerts about the same node, pod, workload or gang share a
 * correlation key and join the open incident holding it; a resolved alert follows its firing self;
 * and when one alertname storms over many subjects (see {@link StormWindow}) its alerts join one
 * fleet incident, {@code alert:fleet:<alertname>}, triaged once instead of node by node.
 *
 * <p>The same code files live alerts (against the store) and replayed scenarios (in memory): only the
 * {@link Index} differs.
 *
 * <p>From labels alone ({@link #subjectOf}): device alerts name a node (dcgm-exporter's
 * {@code Hostname} is mapped to {@code node} by the shipped rules; a few common alternatives are read
 * too); workload alerts name a pod or a workload.
 */
public final class Correlator {

    private static final List<String> NODE_LABELS = List.of("node", "kubernetes_node", "Hostname", "hostname", "exported_node");
    private static final List<String> WORKLOAD_LABELS = List.of("deployment", "statefulset", "jobset", "job_name", "daemonset", "leaderworkerset",
            "pytorchjob", "mpijob", "tfjob", "rayjob", "rayservice", "lws");

    /** The open incidents correlation can join, by key. Live: the store, in a transaction; replay: memory. */
    public interface Index {
        /** The open incident holding any of the keys, the most recently opened first. */
        Optional<String> find(Collection<String> keys);

        /** The open incident the last alert with this fingerprint was filed under. */
        Optional<String> holding(String fingerprint);

        /**
         * Opens an incident for the subject, holding the keys. Not opened: the subject has an open incident
         * already (another replica opened it a moment ago), and that one is returned, holding the keys too.
         */
        Opened open(Subject subject, String node, Collection<String> keys);

        /** The incident an alert goes under when it opens one; {@code opened} false: it joined the subject's open one. */
        record Opened(String id, boolean opened) {}

        /** Adds keys to an open incident, so later alerts about them join it too. */
        void addKeys(String incidentId, Collection<String> keys);

        /** The subject of an open incident. */
        Subject subjectOf(String incidentId);

        /** Makes a node the subject of an open incident (see {@link Correlator#file}). */
        void resubject(String incidentId, Subject node);
    }

    /**
     * Which alertnames storm: in memory for a replay ({@link StormWindow}); live, the inbox in the
     * store ({@link StoredStorms}), so every replica judges a storm alike.
     */
    public interface Storms {
        /** Records that {@code alertname} fired about {@code subjectKey} at {@code at} (the store needs no telling). */
        void record(String alertname, String subjectKey, Instant at);

        /** Whether more distinct subjects than the threshold fired {@code alertname} within the window around {@code at}. */
        boolean storming(String alertname, Instant at);
    }

    /** Where an alert went: the incident, whether filing it opened that incident, and what the alert is about. */
    public record Filing(String incidentId, boolean opened, About about, boolean fleet) {}

    private final SubjectResolver resolver;
    private final Storms storms;

    public Correlator(SubjectResolver resolver, Storms storms) {
        this.resolver = resolver;
        this.storms = storms;
    }

    /**
     * Shows correlation the firing alerts about to be filed together, before any of them is: a storm
     * is judged over everything known at filing time, so its first alerts join the fleet incident too
     * instead of opening (and triaging) an incident per node.
     */
    public void expect(Alert alert, Instant at) {
        if (alert.status() == AlertStatus.FIRING && !alert.name().isEmpty()) {
            storms.record(alert.name(), subjectOf(alert).key(), at);
        }
    }

    /**
     * What an alert is about, and whether it belongs to a storm (call {@link #expect} with it first). Reads the cluster (outside any
     * transaction); {@code at} is when the alert fired (live: when it arrived; replay: its startsAt).
     */
    public About about(Alert alert, Instant at) {
        if (alert.status() == AlertStatus.RESOLVED) {
            // A resolution follows its firing alert (see file); labels suffice when that one is gone.
            Subject subject = subjectOf(alert);
            return new About(subject, nodeOf(alert), Set.of(subject.key()));
        }
        if (!alert.name().isEmpty() && storms.storming(alert.name(), at)) {
            Subject fleet = fleetSubject(alert.name());
            return new About(fleet, null, Set.of(fleet.key()));
        }
        return resolver.resolve(alert);
    }

    /** Files the alert under the open incident sharing a key with it, opening one when there is none. */
    public static Filing file(Alert alert, About about, Index index) {
        if (alert.status() == AlertStatus.RESOLVED) {
            Optional<String> holder = index.holding(alert.fingerprint());
            if (holder.isPresent()) {
                return new Filing(holder.get(), false, about, false);
            }
        }
        return fileUnder(about, index, isFleet(about.subject()));
    }

    private static Filing fileUnder(About about, Index index, boolean fleet) {
        Optional<String> open = index.find(about.keys());
        if (open.isPresent() && !fleet && secondNode(about, index.subjectOf(open.get()))) {
            // The gang key found another node's incident first; this node's own open incident, if any, is where it belongs.
            open = index.find(List.of(about.subject().key()));
        }
        if (open.isEmpty()) {
            return opening(index, about, fleet);
        }
        if (!fleet && secondNode(about, index.subjectOf(open.get()))) {
            // Another node of the same gang or workload: its own fault, to be assessed, fenced and found by
            // node on its own, not swallowed by the first node's incident through the workload key.
            return opening(index, about, false);
        }
        if (open.isPresent()) {
            index.addKeys(open.get(), about.keys());
            // A node alert beside a pod's or a gang's names where the fault is: the workers of a gang time
            // out because of one node. The incident is then about that node, which triage reads whole
            // (its pods, their gang), and which it can fence.
            if (about.subject().kind() == Subject.Kind.NODE && index.subjectOf(open.get()).kind() != Subject.Kind.NODE
                    && !isFleet(index.subjectOf(open.get()))) {
                index.resubject(open.get(), about.subject());
            }
            return new Filing(open.get(), false, about, fleet);
        }
        return opening(index, about, fleet);
    }

    private static Filing opening(Index index, About about, boolean fleet) {
        Index.Opened o = index.open(about.subject(), about.node(), about.keys());
        return new Filing(o.id(), o.opened(), about, fleet);
    }

    /** A node alert meeting an open incident about a different node, shared only through a workload key. */
    private static boolean secondNode(About about, Subject open) {
        return about.subject().kind() == Subject.Kind.NODE && open.kind() == Subject.Kind.NODE
                && !open.name().equals(about.subject().name()) && !about.keys().contains(About.nodeKey(open.name()));
    }

    /** The subject of the fleet incident an alertname's storm joins. */
    public static Subject fleetSubject(String alertname) {
        return new Subject(Subject.Kind.ALERT, null, About.fleetKey(alertname));
    }

    /** A fleet incident's subject, as {@link #fleetSubject} makes it. */
    public static boolean isFleet(Subject subject) {
        return subject.kind() == Subject.Kind.ALERT && subject.name().startsWith("fleet:");
    }

    /** The distinct subjects the alerts name by their labels, in order of first mention. */
    public static List<Subject> membersOf(Collection<Alert> alerts) {
        Set<Subject> out = new LinkedHashSet<>();
        alerts.forEach(a -> out.add(subjectOf(a)));
        return List.copyOf(out);
    }

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
