package io.acceltriage.drill;

import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.audit.AuditQuery;
import io.acceltriage.audit.AuditReader;
import io.acceltriage.audit.AuditRecord;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.AlertInbox;
import io.acceltriage.incident.AlertStatus;
import io.acceltriage.incident.Fingerprints;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentState;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.notify.Escalations;
import io.acceltriage.notify.Notice;
import io.acceltriage.reliability.IncidentTiming;
import io.acceltriage.reliability.ObjectiveCheck;
import io.acceltriage.policy.ForcedDryRun;
import io.acceltriage.reliability.Reliability;
import io.acceltriage.sandbox.Fault;
import io.acceltriage.sandbox.SandboxFaults;
import io.acceltriage.store.Json;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Runs a drill on the sandbox (a shadow drill: see {@link #run(String, String, String)}): the world reset to its seed, the drill's faults injected and their alerts
 * delivered as Alertmanager would, the incident they open followed until it reached every expected
 * stage (or the drill's timeout), each stage timed against the policy's objectives through
 * {@link Reliability}; then the world reset again and the alerts resolved, so the incident closes. The
 * result is audited ({@code drill.finished}); a failed drill is told to people like an escalation.
 * One drill at a time: they share the one sandbox.
 */
@ApplicationScoped
public class DrillRunner {

    /** A drill that cannot run here (not the sandbox, its node busy with a real incident); nothing was injected. */
    public static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    private static final Duration POLL = Duration.ofMillis(250);
    /** How long the drill waits for its incident to close after resolving its alerts (clean-up, not judged). */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    private final String mode;
    private final DrillCatalog catalog;
    private final Instance<SandboxFaults> sandbox;
    private final IncidentStore incidents;
    private final AlertInbox alerts;
    private final Reliability reliability;
    private final AuditLog audit;
    private final AuditReader auditReader;
    private final Escalations escalations;
    private final ShadowOverlay overlay;
    /** The cluster the drill runs against (the sandbox's API server, or the real one): a node override must name one of its nodes. */
    private final io.acceltriage.cluster.ClusterReads cluster;

    DrillRunner(@ConfigProperty(name = "acceltriage.cluster.mode", defaultValue = "sandbox") String mode, DrillCatalog catalog,
            Instance<SandboxFaults> sandbox, IncidentStore incidents, AlertInbox alerts, Reliability reliability, AuditLog audit,
            AuditReader auditReader, Escalations escalations, ShadowOverlay overlay, io.acceltriage.cluster.ClusterReads cluster) {
        this.overlay = overlay;
        this.cluster = cluster;
        this.mode = mode.trim();
        this.catalog = catalog;
        this.sandbox = sandbox;
        this.incidents = incidents;
        this.alerts = alerts;
        this.reliability = reliability;
        this.audit = audit;
        this.auditReader = auditReader;
        this.escalations = escalations;
    }

    public DrillCatalog catalog() {
        return catalog;
    }

    /** Runs {@code name} in this service's default mode: the sandbox on the sandbox, shadow against a real cluster (the schedule). */
    public DrillResult run(String name, String by) {
        return run(name, by, sandbox() ? DrillResult.SANDBOX : DrillResult.SHADOW);
    }

    /**
     * Runs {@code name} in {@code mode} ({@link DrillResult#SANDBOX} or {@link DrillResult#SHADOW}) and records the
     * result; {@code by} is who asked (a person, or the schedule). Throws IllegalArgumentException for an unknown
     * drill or mode and {@link Refused} when it cannot run here.
     */
    public DrillResult run(String name, String by, String mode) {
        return run(name, by, mode, null);
    }

    /**
     * As {@link #run(String, String, String)}, on {@code node} instead of the drill file's node (null: the file's):
     * the drills' files name the sandbox's nodes, a real cluster has its own. A node that is not a node of the
     * cluster is an IllegalArgumentException, before anything is delivered.
     */
    public synchronized DrillResult run(String name, String by, String mode, String node) {
        DrillCatalog.Drill named = catalog.find(name).orElseThrow(() -> new IllegalArgumentException(
                "no drill named '" + abbreviate(name) + "'; the drills are " + catalog.names()));
        if (node != null) {
            if (!io.acceltriage.config.KubernetesNames.isName(node)) {
                throw new IllegalArgumentException("node '" + abbreviate(node) + "' is not a Kubernetes node name");
            }
            if (cluster.node(node) == null) {
                throw new IllegalArgumentException("the cluster has no node '" + node + "'; name one of its nodes (kubectl get nodes)");
            }
        }
        DrillCatalog.Drill drill = node == null ? named : DrillCatalog.on(named, node);
        if (DrillResult.SHADOW.equals(mode)) return shadow(drill, by);
        if (!DrillResult.SANDBOX.equals(mode)) {
            throw new IllegalArgumentException("mode '" + abbreviate(mode) + "' is unknown; a drill runs in mode sandbox or shadow");
        }
        if (!sandbox()) {
            throw new Refused("this service runs against a real cluster (" + this.mode + "), where only a shadow drill runs: its fault is"
                    + " delivered as an alert only and its incident is a dry run, so nothing changes; run `drill " + drill.name()
                    + " --shadow` or POST /api/v1/drills {\"name\": \"" + drill.name() + "\", \"mode\": \"shadow\"}");
        }
        for (Fault f : drill.faults()) {
            if (f.node() != null) refuseIfBusy(f.node());
        }
        SandboxFaults faults = sandbox.get();
        Instant started = Instant.now();
        faults.reset();
        List<SandboxFaults.Delivered> fired = new ArrayList<>();
        DrillResult result;
        try {
            for (Fault f : drill.faults()) {
                SandboxFaults.Delivered d;
                try {
                    d = faults.inject(f);
                } catch (IllegalArgumentException e) {
                    return record(failed(drill, by, started, null, "fault " + f + " does not fit the fleet: " + e.getMessage(), DrillResult.SANDBOX));
                }
                fired.add(d);
                if (!d.delivered()) {
                    return record(failed(drill, by, started, null, "the alert was not delivered: " + d.error(), DrillResult.SANDBOX));
                }
            }
            SandboxFaults.Delivered first = fired.get(0);
            result = follow(drill, by, started, first.alert().labels().get("node"), first.alert().fingerprint(), drill.expect(),
                    DrillResult.SANDBOX);
        } finally {
            faults.reset();
            fired.forEach(d -> faults.resolve(d.alert()));
        }
        awaitClosed(result.incidentId());
        return record(result);
    }

    /** The stages a shadow drill can time: nothing changes, so nothing is verified or returned to service. */
    static final List<String> SHADOW_STAGES = List.of("detect", "decide", "mitigate");

    /**
     * A shadow drill: the drill file's alert, marked as the drill's ({@link ForcedDryRun#DRILL_LABEL}), goes into the
     * inbox as Alertmanager's would; the incident it opens runs dry (decided by {@link ForcedDryRun}); detect, decide
     * and the action that would have mitigated are timed; the alert is resolved after, so the incident closes.
     * Nothing is injected and the sandbox, when there is one, is not touched.
     */
    private DrillResult shadow(DrillCatalog.Drill drill, String by) {
        if (drill.alert() == null) {
            throw new Refused("drill " + drill.name() + " has no alert: section in its file, which a shadow drill delivers instead"
                    + " of the fault; it runs on the sandbox only");
        }
        String node = drill.alert().labels().get("node");
        refuseIfBusy(node);
        Instant started = Instant.now();
        Map<String, String> labels = new TreeMap<>(drill.alert().labels());
        labels.put(ForcedDryRun.DRILL_LABEL, drill.name());
        // The run's token: only this delivery lays the drill's fault over its incident's evidence (ShadowOverlay).
        String run = overlay.open(drill.name(), drill.faults());
        labels.put(ShadowOverlay.RUN_LABEL, run);
        String fingerprint = Fingerprints.of(labels);
        String groupKey = "drill:" + drill.name();
        Alert firing = new Alert(fingerprint, groupKey, AlertStatus.FIRING, labels, drill.alert().annotations(), started, null, null);
        List<String> expect = new ArrayList<>(SHADOW_STAGES.stream()
                .filter(s -> s.equals("detect") || s.equals("decide") || drill.expect().contains(s)).toList());
        DrillResult result;
        try {
            alerts.accept(List.of(firing));
            result = follow(drill, by, started, node, fingerprint, expect, DrillResult.SHADOW);
        } finally {
            overlay.close(run);
            alerts.accept(List.of(new Alert(fingerprint, groupKey, AlertStatus.RESOLVED, labels, drill.alert().annotations(), started,
                    Instant.now(), null)));
        }
        awaitClosed(result.incidentId());
        return record(result);
    }

    private boolean sandbox() {
        return "sandbox".equalsIgnoreCase(mode);
    }

    private void refuseIfBusy(String node) {
        for (Incident i : incidents.list(new IncidentFilter(null, null, node, null, null, null, 20))) {
            if (i.state().open()) {
                throw new Refused("node " + node + " has an open incident " + i.id() + "; a drill there could not tell its incident"
                        + " from that one: resolve it first");
            }
        }
    }

    /** How far back {@link #results} reads: the audit is read oldest first, so a bound keeps old drills from crowding out new ones. */
    static final Duration RESULTS_WINDOW = Duration.ofDays(30);

    /** The results recorded in the last 30 days, newest first, at most {@code limit}. */
    public List<DrillResult> results(int limit) {
        List<DrillResult> out = finishedSince(Instant.now().minus(RESULTS_WINDOW));
        return out.subList(0, Math.min(limit, out.size()));
    }

    /** When the drill last finished since {@code since}, if it did. */
    public Optional<Instant> lastFinished(String name, Instant since) {
        return finishedSince(since).stream().filter(r -> r.drill().equals(name)).map(DrillResult::finishedAt).findFirst();
    }

    private List<DrillResult> finishedSince(Instant since) {
        List<DrillResult> out = new ArrayList<>();
        for (AuditRecord r : auditReader.find(new AuditQuery(null, AuditKind.DRILL_FINISHED, null, since, null, null, null, 10_000))) {
            out.add(Json.MAPPER.convertValue(r.payload(), DrillResult.class));
        }
        out.sort((a, b) -> b.finishedAt().compareTo(a.finishedAt()));
        return out;
    }

    private DrillResult follow(DrillCatalog.Drill drill, String by, Instant started, String node, String fingerprint, List<String> expect,
            String mode) {
        Instant deadline = started.plus(drill.timeout());
        String incidentId = null;
        while (incidentId == null) {
            incidentId = incidentOf(node, fingerprint, started).orElse(null);
            if (incidentId == null) {
                if (Instant.now().isAfter(deadline)) {
                    return failed(drill, by, started, null, "no incident was opened for the alert within " + drill.timeout().toSeconds() + " s",
                            mode);
                }
                pause();
            }
        }
        Reliability.IncidentReport report = reliability.incident(incidentId).orElseThrow();
        // Escalated or no fault: no later stage comes without a person, so the drill need not wait its timeout out.
        while (!reachedAll(expect, report.timing()) && Instant.now().isBefore(deadline) && !settled(incidentId)) {
            pause();
            report = reliability.incident(incidentId).orElseThrow();
        }
        List<DrillResult.Stage> stages = table(expect, report).stream()
                .map(st -> DrillResult.SHADOW.equals(mode) && "mitigate".equals(st.stage())
                        ? new DrillResult.Stage("mitigate (dry run)", st.tookSeconds(), st.objective(), st.withinSeconds(), st.status()) : st)
                .toList();
        boolean passed = stages.stream().noneMatch(DrillResult.Stage::failed);
        String waiting = incidents.find(incidentId).map(Incident::state)
                .filter(st -> st == IncidentState.AWAITING_APPROVAL || st == IncidentState.ESCALATED)
                .map(st -> "; the incident is " + st.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                        + ": a stage waits for a person, which a drill does not stand in for").orElse("");
        if (DrillResult.SHADOW.equals(mode) && "none".equals(report.timing().family())) {
            waiting += "; the responder found no fault on the node, even with the drill's fault laid over its evidence (a fault kind"
                    + " without a synthetic reading: xid, dbe-ecc and device-plugin-crash have one), so nothing would have been mitigated"
                    + " (detect and decide are still timed)";
        }
        return new DrillResult(drill.name(), by, started, Instant.now(), incidentId, report.timing().family(), passed, stages,
                passed ? null : problem(stages) + waiting, mode);
    }

    /** One row per expected stage and objective bounding it; a stage no objective bounds gets one row. */
    static List<DrillResult.Stage> table(List<String> expect, Reliability.IncidentReport report) {
        IncidentTiming t = report.timing();
        List<DrillResult.Stage> rows = new ArrayList<>();
        for (String stage : expect) {
            boolean reached = reachedAt(t, stage) != null;
            Double took = seconds(took(t, stage));
            List<ObjectiveCheck> checks = report.checks().stream().filter(c -> stage.equals(c.stage())).toList();
            if (checks.isEmpty()) rows.add(new DrillResult.Stage(stage, took, null, null, reached ? "reached" : "missed"));
            for (ObjectiveCheck c : checks) {
                String status = c.status() == ObjectiveCheck.Status.BREACHED ? "breached"
                        : c.status() == ObjectiveCheck.Status.MET ? "met" : reached ? "reached" : "missed";
                rows.add(new DrillResult.Stage(stage, reached ? took : null, c.objective(), c.withinSeconds(), status));
            }
        }
        return rows;
    }

    private boolean settled(String incidentId) {
        return incidents.find(incidentId).map(i -> i.state() == IncidentState.ESCALATED || i.state() == IncidentState.NO_FAULT).orElse(false);
    }

    private static boolean reachedAll(List<String> stages, IncidentTiming t) {
        return stages.stream().allMatch(s -> reachedAt(t, s) != null);
    }

    static Instant reachedAt(IncidentTiming t, String stage) {
        return switch (stage) {
            case "detect" -> t.receivedAt();
            case "decide" -> t.decidedAt();
            case "mitigate" -> t.mitigatedAt();
            case "verify" -> t.verifiedAt();
            case "return-to-service" -> t.returnedAt();
            default -> t.resolvedAt();
        };
    }

    private static Duration took(IncidentTiming t, String stage) {
        return switch (stage) {
            case "detect" -> t.toDetect();
            case "decide" -> t.toDecide();
            case "mitigate" -> t.toMitigate();
            case "verify" -> t.toVerify();
            case "return-to-service" -> t.toReturn();
            default -> t.toResolve();
        };
    }

    /** The incident the alert was filed under: an alert of its fingerprint received since the drill started. */
    private Optional<String> incidentOf(String node, String fingerprint, Instant started) {
        for (Incident i : incidents.list(new IncidentFilter(null, null, node, null, null, null, 20))) {
            boolean ours = alerts.ofIncident(i.id()).stream().anyMatch(a -> a.alert().fingerprint().equals(fingerprint)
                    && !a.receivedAt().isBefore(started));
            if (ours) return Optional.of(i.id());
        }
        return Optional.empty();
    }

    private void awaitClosed(String incidentId) {
        if (incidentId == null) return;
        Instant until = Instant.now().plus(CLOSE_WAIT);
        while (Instant.now().isBefore(until) && incidents.find(incidentId).map(i -> i.state().open()).orElse(false)) pause();
    }

    private DrillResult record(DrillResult r) {
        audit.append(r.incidentId(), AuditKind.DRILL_FINISHED, r.by(), r);
        if (!r.passed()) {
            String summary = "drill " + r.drill() + " failed: " + r.problem();
            escalations.tell(new Notice(r.incidentId(), "drill_failed", "drill:" + r.drill(), r.family() == null ? "none" : r.family(), 0,
                    summary, List.of(summary + "; see what held it up in the incident's audit trail and GET /api/v1/drills"), null));
        }
        return r;
    }

    private static DrillResult failed(DrillCatalog.Drill drill, String by, Instant started, String incidentId, String problem, String mode) {
        return new DrillResult(drill.name(), by, started, Instant.now(), incidentId, null, false, List.of(), problem, mode);
    }

    private static String problem(List<DrillResult.Stage> stages) {
        List<String> parts = new ArrayList<>();
        for (DrillResult.Stage s : stages) {
            if ("breached".equals(s.status())) {
                parts.add(s.stage() + " took " + s.tookSeconds() + " s, objective " + s.objective() + " is " + s.withinSeconds() + " s");
            } else if ("missed".equals(s.status())) {
                parts.add(s.stage() + " did not happen before the drill's timeout");
            }
        }
        return String.join("; ", parts);
    }

    private static Double seconds(Duration d) {
        return d == null ? null : d.toMillis() / 1000.0;
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static void pause() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while following the drill", e);
        }
    }
}
