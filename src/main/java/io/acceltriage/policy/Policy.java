package io.acceltriage.policy;

import io.acceltriage.config.DataFiles;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * A policy file of {@code policies/}. Schema and meaning: {@code policies/README.md}. Every field
 * has a safe default, so a short file is a strict one.
 */
public record Policy(String apiVersion, String kind, Metadata metadata, Boolean dryRun, String optOutLabel,
        Scope scope, Map<String, ActionRule> actions, List<Budget> budgets, Limits limits, Breaker breaker,
        List<MaintenanceWindow> maintenanceWindows, List<Freeze> changeFreezes, Approvals approvals,
        List<String> approvers, Repair repair, RepeatOffenders repeatOffenders, Silences silences, List<Objective> objectives,
        List<Drill> drills, Checkpoints checkpoints, Rollouts rollouts) {

    /** The components before {@code rollouts}: code written before the key existed builds a policy without one. */
    public Policy(String apiVersion, String kind, Metadata metadata, Boolean dryRun, String optOutLabel,
            Scope scope, Map<String, ActionRule> actions, List<Budget> budgets, Limits limits, Breaker breaker,
            List<MaintenanceWindow> maintenanceWindows, List<Freeze> changeFreezes, Approvals approvals,
            List<String> approvers, Repair repair, RepeatOffenders repeatOffenders, Silences silences, List<Objective> objectives,
            List<Drill> drills, Checkpoints checkpoints) {
        this(apiVersion, kind, metadata, dryRun, optOutLabel, scope, actions, budgets, limits, breaker, maintenanceWindows,
                changeFreezes, approvals, approvers, repair, repeatOffenders, silences, objectives, drills, checkpoints, null);
    }

    /** The components before {@code checkpoints}: code written before the key existed builds a policy without one. */
    public Policy(String apiVersion, String kind, Metadata metadata, Boolean dryRun, String optOutLabel,
            Scope scope, Map<String, ActionRule> actions, List<Budget> budgets, Limits limits, Breaker breaker,
            List<MaintenanceWindow> maintenanceWindows, List<Freeze> changeFreezes, Approvals approvals,
            List<String> approvers, Repair repair, RepeatOffenders repeatOffenders, Silences silences, List<Objective> objectives,
            List<Drill> drills) {
        this(apiVersion, kind, metadata, dryRun, optOutLabel, scope, actions, budgets, limits, breaker, maintenanceWindows,
                changeFreezes, approvals, approvers, repair, repeatOffenders, silences, objectives, drills, null);
    }

    public record Metadata(String name, String description) {}

    /** Where the agent may act at all. Empty lists mean everywhere. */
    public record Scope(List<String> namespaces, List<String> excludeNamespaces, List<String> pools,
            Map<String, String> matchLabels, Map<String, String> excludeLabels) {}

    /** What one action kind may do: allow, approve (a person decides) or deny, and from what confidence. */
    public record ActionRule(Decision decision, Double minConfidence, Boolean dryRun, String cooldown,
            Boolean maintenanceOnly, Taint taint) {}

    /** A taint cordon-node adds to the node besides marking it unschedulable. */
    public record Taint(String key, String value, String effect) {}

    /** At most {@code max} of {@code action} (or any, for "*") per {@code window}, counted {@code per} target, workload or fleet. */
    public record Budget(String action, Integer max, String window, String per) {}

    public record Limits(Double maxCordonedShareOfPool, Boolean keepLastHealthyNode, Boolean keepServingFloor,
            Boolean wholeGangsOnly) {}

    /** Trips after {@code maxActions} in {@code window}, or when a pool asks for more nodes than its cap. */
    public record Breaker(Integer maxActions, String window, Boolean tripOnPoolCap) {}

    public record MaintenanceWindow(List<String> days, String start, String end, String zone) {}

    public record Freeze(Instant from, Instant to, String reason) {}

    public record Approvals(String expireAfter) {}

    /**
     * How a GPU is reset and a node handed to repair and taken back. {@code operands}: the GPU
     * operator's operands paused (label {@code nvidia.com/gpu.deploy.<operand>=false}) while a GPU
     * resets; {@code resetTimeout}: how long the node agent may take to answer the reset request;
     * {@code protocol}: how a node goes to repair ({@code handshake} or {@code medik8s});
     * {@code remediation}: the medik8s remediation CR to create; {@code healthLabel}: what must be
     * on a node before {@code return-node} takes it back (an alternative to {@code validation});
     * {@code validation}: how {@code validate-node} runs DCGM diagnostics; {@code pools}: the protocol of a
     * pool that differs from {@code protocol} (pool name → {@code handshake}, {@code medik8s},
     * {@code clusterapi} or {@code karpenter}); {@code replaceTimeout}: how long {@code replace-node}
     * waits for the replacement to join the pool.
     */
    public record Repair(List<String> operands, String resetTimeout, String protocol, Remediation remediation,
            HealthLabel healthLabel, Validation validation, Map<String, String> pools, String replaceTimeout,
            String resetMethod, ResetJob resetJob, Dra dra) {}

    /**
     * reset-gpu as a Job ({@code resetMethod: job}): {@code template} the Job's YAML (an operator's file, else
     * the bundled {@code policies/reset-gpu-job.yaml}), {@code namespace} where it runs.
     */
    public record ResetJob(String template, String namespace) {}

    /**
     * Where GPUs are DRA devices: the DRA driver's name (its ResourceSlices on the node say the node is one
     * of them) and the {@code resource.k8s.io} version that serves DeviceTaintRule on this cluster.
     */
    public record Dra(String driver, String apiVersion) {}

    public static final String DEFAULT_RESET_TEMPLATE = "policies/reset-gpu-job.yaml";

    /** How a GPU is reset: {@code node-agent} (the label handshake, the default) or {@code job}. */
    public String resetMethod() {
        return repair == null || repair.resetMethod() == null ? "node-agent" : repair.resetMethod();
    }

    public String resetTemplate() {
        return repair == null || repair.resetJob() == null || repair.resetJob().template() == null ? DEFAULT_RESET_TEMPLATE
                : repair.resetJob().template();
    }

    public String resetNamespace() {
        return repair == null || repair.resetJob() == null || repair.resetJob().namespace() == null ? validationNamespace()
                : repair.resetJob().namespace();
    }

    /** NVIDIA's DRA driver and DeviceTaintRule as Kubernetes 1.33 serves it, unless the policy says otherwise. */
    public Dra dra() {
        Dra d = repair == null ? null : repair.dra();
        return new Dra(d == null || d.driver() == null ? "gpu.nvidia.com" : d.driver(),
                d == null || d.apiVersion() == null ? "resource.k8s.io/v1alpha3" : d.apiVersion());
    }

    /** The repair protocols a pool can name: who reboots or replaces its nodes, and how acceltriage asks. */
    public static final List<String> REPAIR_PROTOCOLS = List.of("handshake", "medik8s", "clusterapi", "karpenter");

    /** The protocol of the pool's repairer (null pool: the policy's default). */
    public String repairProtocol(String pool) {
        if (repair != null && repair.pools() != null && pool != null && repair.pools().containsKey(pool)) return repair.pools().get(pool);
        return repairProtocol();
    }

    /** The protocols whose repairer only replaces nodes, never reboots one: Karpenter ends the instance. */
    public static final java.util.Set<String> REPLACE_ONLY_PROTOCOLS = java.util.Set.of("karpenter");

    /** medik8s remediation kinds that replace the node instead of rebooting it (medik8s machine-deletion-remediation). */
    public static final java.util.Set<String> REPLACING_REMEDIATIONS = java.util.Set.of("MachineDeletionRemediation");

    /** Whether the repairer of {@code pool} can reboot a node (every protocol can replace one). */
    public boolean repairCanReboot(String pool) {
        return !REPLACE_ONLY_PROTOCOLS.contains(repairProtocol(pool));
    }

    /** How long replace-node waits for a new node in the pool: 30 minutes unless set. */
    public Duration replaceTimeout() {
        return repair == null || repair.replaceTimeout() == null ? Duration.ofMinutes(30) : Durations.parse(repair.replaceTimeout());
    }

    /**
     * DCGM diagnostics as a Job: {@code level} ({@code dcgmi diag -r}, 1–4) unless {@code pools} names
     * the node's pool; {@code template} the Job's YAML (an operator's file, else the bundled copy);
     * {@code namespace} where the Job runs; {@code timeout} how long it may take.
     */
    public record Validation(Integer level, Map<String, Integer> pools, String template, String namespace, String timeout) {}

    public static final String DEFAULT_VALIDATION_TEMPLATE = "policies/validate-node-job.yaml";

    /** The diagnostic level for a node of {@code pool} (null when unknown): 2 (medium, about 2 minutes) unless set. */
    public int validationLevel(String pool) {
        Validation v = repair == null ? null : repair.validation();
        if (v != null && v.pools() != null && pool != null && v.pools().containsKey(pool)) return v.pools().get(pool);
        return v == null || v.level() == null ? 2 : v.level();
    }

    public String validationTemplate() {
        Validation v = repair == null ? null : repair.validation();
        return v == null || v.template() == null ? DEFAULT_VALIDATION_TEMPLATE : v.template();
    }

    public String validationNamespace() {
        Validation v = repair == null ? null : repair.validation();
        return v == null || v.namespace() == null ? "acceltriage" : v.namespace();
    }

    public Duration validationTimeout() {
        Validation v = repair == null ? null : repair.validation();
        return v == null || v.timeout() == null ? Duration.ofMinutes(30) : Durations.parse(v.timeout());
    }

    /** True when the policy names a health label: then return-node also takes a node back on it, without a validate-node. */
    public boolean healthLabelConfigured() {
        return repair != null && repair.healthLabel() != null;
    }

    /** A medik8s-style remediation CR named after the node, e.g. SelfNodeRemediation. */
    public record Remediation(String apiVersion, String kind, String namespace) {}

    /** A node label set by a health check (DCGM diagnostics, IBM Autopilot) and the value that means healthy. */
    public record HealthLabel(String key, String pass) {}

    /** When a GPU or node stops being reset or returned automatically and a person contacts support. */
    public record RepeatOffenders(Integer fatalXidsPerGpu, String xidWindow, Integer remediationsPerNode,
            String remediationWindow) {}

    /** The operands the GPU operator documents per-node deploy labels for; paused while a GPU resets. */
    public static final List<String> DEFAULT_OPERANDS = List.of("device-plugin", "dcgm-exporter", "dcgm", "gpu-feature-discovery");

    public List<String> resetOperands() {
        return repair == null || repair.operands() == null ? DEFAULT_OPERANDS : repair.operands();
    }

    public Duration resetTimeout() {
        return repair == null || repair.resetTimeout() == null ? Duration.ofMinutes(5) : Durations.parse(repair.resetTimeout());
    }

    public String repairProtocol() {
        return repair == null || repair.protocol() == null ? "handshake" : repair.protocol();
    }

    public Remediation remediation() {
        return repair == null ? null : repair.remediation();
    }

    /** The label the sandbox's health check (and a DCGM diagnostics Job written for it) sets, and its passing value. */
    public static final HealthLabel DEFAULT_HEALTH_LABEL = new HealthLabel("acceltriage.io/gpu-health", "passed");

    public HealthLabel healthLabel() {
        return repair == null || repair.healthLabel() == null ? DEFAULT_HEALTH_LABEL : repair.healthLabel();
    }

    /** NVSentinel's analyzer: 5 fatal XIDs on one GPU in 24 h means contact support. */
    public int fatalXidsPerGpu() {
        return repeatOffenders == null || repeatOffenders.fatalXidsPerGpu() == null ? 5 : repeatOffenders.fatalXidsPerGpu();
    }

    public Duration xidWindow() {
        return repeatOffenders == null || repeatOffenders.xidWindow() == null ? Duration.ofHours(24)
                : Durations.parse(repeatOffenders.xidWindow());
    }

    /** NVSentinel: 5 remediations of one node in 7 days means contact support. */
    public int remediationsPerNode() {
        return repeatOffenders == null || repeatOffenders.remediationsPerNode() == null ? 5
                : repeatOffenders.remediationsPerNode();
    }

    public Duration remediationWindow() {
        return repeatOffenders == null || repeatOffenders.remediationWindow() == null ? Duration.ofDays(7)
                : Durations.parse(repeatOffenders.remediationWindow());
    }

    /**
     * Where a training gang's last checkpoint is read, and how long a restart may wait for the next one.
     * {@code annotation}: the key the trainer writes on the gang's top object (JobSet, PyTorchJob,
     * LeaderWorkerSet, StatefulSet, Job), an RFC 3339 time; {@code tool}: a tool of {@code tools/}
     * answering seconds since the last checkpoint for a namespace (read when the annotation is absent);
     * {@code maxWait}: the longest a restart of a gang on a degraded (not failed) device waits for the
     * next checkpoint before it restarts anyway.
     */
    public record Checkpoints(String annotation, String tool, String maxWait) {}

    /** Node-agent rollouts: {@code canary} watches them (absent: none is watched). */
    public record Rollouts(Canary canary) {}

    /**
     * A rollout of a watched node-agent DaemonSet ({@code agents}: roles of {@code knowledge/node-agents.yaml},
     * {@code driver}, {@code device-plugin}, {@code exporter}) is held at its first {@code nodes} nodes until the
     * DCGM diagnostic at {@code level} passed on each of them within {@code timeout}.
     */
    public record Canary(List<String> agents, Integer nodes, Integer level, String timeout) {}

    /** The node-agent roles whose rollouts are validated by canary; empty: none. */
    public List<String> canaryAgents() {
        return rollouts == null || rollouts.canary() == null || rollouts.canary().agents() == null ? List.of() : rollouts.canary().agents();
    }

    /** One node unless set: the first node on the new revision proves it runs at all. */
    public int canaryNodes() {
        return rollouts == null || rollouts.canary() == null || rollouts.canary().nodes() == null ? 1 : rollouts.canary().nodes();
    }

    /** Level 1 unless set: the quick deployment checks, which do not load GPUs that serve while they run. */
    public int canaryLevel() {
        return rollouts == null || rollouts.canary() == null || rollouts.canary().level() == null ? 1 : rollouts.canary().level();
    }

    /** 30 minutes unless set: for the canaries' new pods to turn Ready and their diagnostics to finish. */
    public Duration canaryTimeout() {
        return rollouts == null || rollouts.canary() == null || rollouts.canary().timeout() == null ? Duration.ofMinutes(30)
                : Durations.parse(rollouts.canary().timeout());
    }

    public static final String DEFAULT_CHECKPOINT_ANNOTATION = "acceltriage.io/last-checkpoint";

    public String checkpointAnnotation() {
        return checkpoints == null || checkpoints.annotation() == null ? DEFAULT_CHECKPOINT_ANNOTATION : checkpoints.annotation();
    }

    /** The checkpoint tool's name, null for none: the annotation alone. */
    public String checkpointTool() {
        return checkpoints == null ? null : checkpoints.tool();
    }

    /** 30 minutes unless set: a trainer checkpointing less often than that loses more to the slow device than to the restart. */
    public Duration checkpointMaxWait() {
        return checkpoints == null || checkpoints.maxWait() == null ? Duration.ofMinutes(30) : Durations.parse(checkpoints.maxWait());
    }

    /** Silences people create from chat: at most {@code maxDuration} long. */
    public record Silences(String maxDuration) {}

    /** The longest silence chat may create; chat's own ceiling is a week. */
    static final Duration MAX_CHAT_SILENCE = Duration.ofDays(7);

    /**
     * How long a silence from chat may last. A silence hides a fault from everyone, so the default is
     * a working shift, not chat's ceiling of a week.
     */
    public Duration silenceMaxDuration() {
        return silences == null || silences.maxDuration() == null ? Duration.ofHours(4) : Durations.parse(silences.maxDuration());
    }

    /**
     * A recovery objective: incidents of {@code family} and/or {@code pool} (absent: any) reach
     * {@code stage} within {@code within} of their first alert (detect: from the fault's start to the
     * alert). Or, with {@code gpuHoursPerWeek} instead of a stage, at most that many GPU-hours lost to
     * fencing in any 7 days, per pool (or in the one pool it names).
     */
    public record Objective(String name, String family, String pool, String stage, String within, Double gpuHoursPerWeek) {

        public boolean isLossBudget() {
            return gpuHoursPerWeek != null;
        }

        public Duration bound() {
            return within == null ? null : Durations.parse(within);
        }
    }

    /** The stages of an incident an objective may bound, in the order they happen. */
    public static final List<String> OBJECTIVE_STAGES = List.of("detect", "decide", "mitigate", "verify", "return-to-service", "resolve");

    /** Without an {@code objectives} key: decide in a minute, mitigate a device fault in 2 minutes, return its node in 4 h. */
    public static final List<Objective> DEFAULT_OBJECTIVES = List.of(
            new Objective("decided", null, null, "decide", "1m", null),
            new Objective("device-mitigated", "device", null, "mitigate", "2m", null),
            new Objective("infrastructure-mitigated", "infrastructure", null, "mitigate", "5m", null),
            new Objective("device-node-returned", "device", null, "return-to-service", "4h", null),
            new Objective("resolved", null, null, "resolve", "24h", null),
            new Objective("gpu-hours-lost", null, null, null, null, 200.0));

    public List<Objective> objectivesOrDefault() {
        return objectives == null ? DEFAULT_OBJECTIVES : objectives;
    }

    /** A fault drill of {@code knowledge/drills/} run on the sandbox every {@code every} (e.g. 24h). */
    public record Drill(String name, String every) {

        public Duration interval() {
            return Durations.parse(every);
        }
    }

    /** The shortest interval between two runs of a scheduled drill: each one resets the sandbox's world. */
    public static final Duration MIN_DRILL_INTERVAL = Duration.ofMinutes(10);

    public List<Drill> drillsOrEmpty() {
        return drills == null ? List.of() : drills;
    }

    public boolean globalDryRun() {
        return Boolean.TRUE.equals(dryRun);
    }

    public String name() {
        return metadata == null || metadata.name() == null ? "(unnamed)" : metadata.name();
    }

    public String optOutLabelOrDefault() {
        return optOutLabel == null ? "acceltriage.io/opt-out" : optOutLabel;
    }

    public double maxCordonedShare() {
        return limits == null || limits.maxCordonedShareOfPool() == null ? 0.10 : limits.maxCordonedShareOfPool();
    }

    boolean keepLastHealthyNode() {
        return limits == null || limits.keepLastHealthyNode() == null || limits.keepLastHealthyNode();
    }

    boolean keepServingFloor() {
        return limits == null || limits.keepServingFloor() == null || limits.keepServingFloor();
    }

    public boolean wholeGangsOnly() {
        return limits == null || limits.wholeGangsOnly() == null || limits.wholeGangsOnly();
    }

    int breakerMaxActions() {
        return breaker == null || breaker.maxActions() == null ? 10 : breaker.maxActions();
    }

    Duration breakerWindow() {
        return breaker == null || breaker.window() == null ? Duration.ofMinutes(10) : Durations.parse(breaker.window());
    }

    boolean tripOnPoolCap() {
        return breaker == null || breaker.tripOnPoolCap() == null || breaker.tripOnPoolCap();
    }

    /** How long an action waits for a person before it expires. */
    public Duration approvalExpiry() {
        return approvals == null || approvals.expireAfter() == null ? Duration.ofHours(4) : Durations.parse(approvals.expireAfter());
    }

    public List<String> approversOrEmpty() {
        return approvers == null ? List.of() : approvers;
    }

    /** This policy with one more approver (the sandbox's generated admin); the file is not changed. */
    public Policy withApprover(String name) {
        if (approversOrEmpty().contains(name)) return this;
        List<String> more = new java.util.ArrayList<>(approversOrEmpty());
        more.add(name);
        return new Policy(apiVersion, kind, metadata, dryRun, optOutLabel, scope, actions, budgets, limits, breaker,
                maintenanceWindows, changeFreezes, approvals, List.copyOf(more), repair, repeatOffenders, silences, objectives, drills,
                checkpoints, rollouts);
    }

    public Taint cordonTaint() {
        ActionRule r = rule(ActionKind.CORDON_NODE);
        return r == null ? null : r.taint();
    }

    public static Policy load(String path) {
        java.nio.file.Path file = java.nio.file.Path.of(path);
        try {
            if (java.nio.file.Files.isRegularFile(file)) {
                return parse(path, java.nio.file.Files.readAllBytes(file));
            }
            try (var in = Policy.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) {
                    throw new DataFiles.InvalidDataFile(path + ": no such file (nor bundled); set ACCELTRIAGE_POLICY_FILE to a policy file");
                }
                org.jboss.logging.Logger.getLogger(Policy.class).warnf(
                        "policy: %s is not a file here (working folder %s); using the copy bundled with the build", path,
                        java.nio.file.Path.of("").toAbsolutePath());
                return parse(path, in.readAllBytes());
            }
        } catch (java.io.IOException e) {
            throw new DataFiles.InvalidDataFile(path + ": cannot read: " + e.getMessage());
        }
    }

    public static Policy parse(String name, byte[] content) {
        PolicyValidator validator = new PolicyValidator(name, new String(content, StandardCharsets.UTF_8));
        Policy parsed;
        try {
            parsed = DataFiles.parse(name, content, Policy.class);
        } catch (DataFiles.InvalidDataFile e) {
            throw validator.relocated(e);
        }
        return validator.validated(parsed);
    }

    ActionRule rule(ActionKind kind) {
        if (actions == null) return null;
        ActionRule rule = actions.get(kind.wireName());
        return rule != null || kind.formerName() == null ? rule : actions.get(kind.formerName());
    }

    List<Budget> budgetsOrEmpty() {
        return budgets == null ? List.of() : budgets;
    }

    /** The zone of a window, UTC unless it names one. */
    static ZoneId zone(MaintenanceWindow w) {
        return w.zone() == null ? ZoneId.of("UTC") : ZoneId.of(w.zone());
    }

    static LocalTime time(String hhmm) {
        return LocalTime.parse(hhmm);
    }
}
