package io.acceltriage.policy;

import io.acceltriage.config.DataFiles;
import io.acceltriage.diagnosis.Family;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks a policy passes before it is used. Each error names the file, the line of the key and
 * the reason, so an operator fixes it without guessing. The YAML mapper already refuses unknown
 * keys and wrong types; this class checks meaning.
 */
final class PolicyValidator {

    private static final Set<String> PER = Set.of("target", "workload", "fleet");
    private static final java.util.List<String> PROTOCOLS = Policy.REPAIR_PROTOCOLS;
    private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

    private final String file;
    private final String[] lines;

    PolicyValidator(String file, String text) {
        this.file = file;
        this.lines = text.split("\n", -1);
    }

    Policy validated(Policy p) {
        if (!"acceltriage.io/v1".equals(p.apiVersion())) {
            fail("'" + p.apiVersion() + "' is not a policy apiVersion: write acceltriage.io/v1", "apiVersion");
        }
        if (!"Policy".equals(p.kind())) {
            fail("kind must be Policy, got '" + p.kind() + "'", "kind");
        }
        if (p.actions() != null) {
            for (Map.Entry<String, Policy.ActionRule> e : p.actions().entrySet()) {
                String k = e.getKey();
                try {
                    ActionKind kind = ActionKind.parse(k);
                    if (kind.formerName() != null && p.actions().containsKey(kind.wireName()) && p.actions().containsKey(kind.formerName())) {
                        fail("actions: " + kind.formerName() + " is the former name of " + kind.wireName() + "; keep one of the two",
                                "actions", k);
                    }
                } catch (IllegalArgumentException ex) {
                    fail(ex.getMessage(), "actions", k);
                }
                Policy.ActionRule r = e.getValue();
                if (r == null || r.decision() == null) {
                    fail("actions." + k + ".decision is required (allow, approve or deny)", "actions", k);
                }
                if (r.minConfidence() != null && (r.minConfidence() < 0 || r.minConfidence() > 1)) {
                    fail("actions." + k + ".minConfidence must be between 0 and 1, got " + r.minConfidence(), "actions", k, "minConfidence");
                }
                duration(r.cooldown(), "actions", k, "cooldown");
                if (r.taint() != null) {
                    if (!ActionKind.CORDON_NODE.wireName().equals(k)) {
                        fail("actions." + k + ".taint: only cordon-node adds a taint", "actions", k, "taint");
                    }
                    if (r.taint().key() == null || r.taint().key().isBlank()) {
                        fail("actions." + k + ".taint.key is required", "actions", k, "taint");
                    }
                    if (r.taint().effect() != null && !EFFECTS.contains(r.taint().effect())) {
                        fail("actions." + k + ".taint.effect must be one of " + EFFECTS + ", got '" + r.taint().effect() + "'",
                                "actions", k, "taint", "effect");
                    }
                }
            }
        }
        List<Policy.Budget> budgets = p.budgetsOrEmpty();
        for (int i = 0; i < budgets.size(); i++) {
            Policy.Budget b = budgets.get(i);
            String at = "budgets[" + i + "]";
            if (b.action() == null || (!"*".equals(b.action()) && !known(b.action()))) {
                fail(at + ".action must name an action or be \"*\", got '" + b.action() + "'", "budgets", "action");
            }
            if (b.max() == null || b.max() < 0) {
                fail(at + ".max must be a number of actions ≥ 0", "budgets", "max");
            }
            if (b.window() == null) {
                fail(at + ".window is required, e.g. 1h", "budgets", "window");
            }
            duration(b.window(), "budgets", "window");
            if (b.per() != null && !PER.contains(b.per())) {
                fail(at + ".per must be one of " + PER + ", got '" + b.per() + "'", "budgets", "per");
            }
        }
        if (p.limits() != null && p.limits().maxCordonedShareOfPool() != null
                && (p.limits().maxCordonedShareOfPool() <= 0 || p.limits().maxCordonedShareOfPool() > 1)) {
            fail("limits.maxCordonedShareOfPool must be in (0, 1], got " + p.limits().maxCordonedShareOfPool(),
                    "limits", "maxCordonedShareOfPool");
        }
        if (p.breaker() != null) {
            if (p.breaker().maxActions() != null && p.breaker().maxActions() < 1) {
                fail("breaker.maxActions must be at least 1, got " + p.breaker().maxActions(), "breaker", "maxActions");
            }
            duration(p.breaker().window(), "breaker", "window");
        }
        if (p.maintenanceWindows() != null) {
            for (Policy.MaintenanceWindow w : p.maintenanceWindows()) {
                if (w.start() == null || w.end() == null) {
                    fail("maintenanceWindows: start and end are required (HH:mm)", "maintenanceWindows");
                }
                try {
                    Policy.time(w.start());
                    Policy.time(w.end());
                } catch (RuntimeException e) {
                    fail("maintenanceWindows: '" + w.start() + "'-'" + w.end() + "' are not times; write HH:mm", "maintenanceWindows", "start");
                }
                if (w.zone() != null) {
                    try {
                        ZoneId.of(w.zone());
                    } catch (RuntimeException e) {
                        fail("maintenanceWindows: unknown zone '" + w.zone() + "'", "maintenanceWindows", "zone");
                    }
                }
                if (w.days() != null) {
                    for (String d : w.days()) {
                        if (day(d) == null) {
                            fail("maintenanceWindows: '" + d + "' is not a day; write MON, TUE, ... SUN", "maintenanceWindows", "days");
                        }
                    }
                }
            }
        }
        if (p.changeFreezes() != null) {
            for (Policy.Freeze f : p.changeFreezes()) {
                if (f.from() == null || f.to() == null || !f.to().isAfter(f.from())) {
                    fail("changeFreezes: from and to are required and to must be after from", "changeFreezes");
                }
            }
        }
        if (p.approvals() != null) {
            duration(p.approvals().expireAfter(), "approvals", "expireAfter");
        }
        if (p.repair() != null) {
            Policy.Repair r = p.repair();
            duration(r.resetTimeout(), "repair", "resetTimeout");
            if (r.operands() != null) {
                for (String o : r.operands()) {
                    if (o == null || !o.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
                        fail("repair.operands: '" + o + "' is not an operand name as the GPU operator's nvidia.com/gpu.deploy.<operand>"
                                + " labels spell it, e.g. device-plugin", "repair", "operands");
                    }
                }
            }
            if (r.protocol() != null && !PROTOCOLS.contains(r.protocol())) {
                fail("repair.protocol must be one of " + PROTOCOLS + ", got '" + r.protocol() + "'", "repair", "protocol");
            }
            duration(r.replaceTimeout(), "repair", "replaceTimeout");
            if (r.resetMethod() != null && !java.util.List.of("node-agent", "job").contains(r.resetMethod())) {
                fail("repair.resetMethod must be node-agent or job, got '" + r.resetMethod() + "'", "repair", "resetMethod");
            }
            if (r.resetJob() != null && r.resetJob().namespace() != null && !r.resetJob().namespace().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
                fail("repair.resetJob.namespace: '" + r.resetJob().namespace() + "' is not a namespace name", "repair", "resetJob");
            }
            if (r.dra() != null && r.dra().apiVersion() != null && !r.dra().apiVersion().startsWith("resource.k8s.io/")) {
                fail("repair.dra.apiVersion: '" + r.dra().apiVersion() + "' is not a resource.k8s.io version (DeviceTaintRule lives there)",
                        "repair", "dra");
            }
            if (r.pools() != null) {
                for (Map.Entry<String, String> e : r.pools().entrySet()) {
                    if (!PROTOCOLS.contains(e.getValue())) {
                        fail("repair.pools." + e.getKey() + " must be one of " + PROTOCOLS + ", got '" + e.getValue() + "'", "repair", "pools");
                    }
                }
            }
            boolean medik8s = "medik8s".equals(r.protocol()) || (r.pools() != null && r.pools().containsValue("medik8s"));
            if (medik8s && (r.remediation() == null || blank(r.remediation().apiVersion())
                    || blank(r.remediation().kind()) || blank(r.remediation().namespace()))) {
                fail("repair.remediation needs apiVersion, kind and namespace for protocol medik8s, e.g. {apiVersion:"
                        + " remediation.medik8s.io/v1alpha1, kind: SelfNodeRemediation, namespace: medik8s}", "repair", "protocol");
            }
            if (r.healthLabel() != null && (blank(r.healthLabel().key()) || blank(r.healthLabel().pass()))) {
                fail("repair.healthLabel needs key and pass", "repair", "healthLabel");
            }
            if (r.validation() != null) {
                Policy.Validation v = r.validation();
                duration(v.timeout(), "repair", "validation");
                java.util.List<Integer> levels = new java.util.ArrayList<>();
                if (v.level() != null) levels.add(v.level());
                if (v.pools() != null) levels.addAll(v.pools().values());
                for (Integer l : levels) {
                    if (l == null || l < 1 || l > 4) {
                        fail("repair.validation: level " + l + " is not a dcgmi diag level (1 quick, 2 medium, 3 long, 4 extended)",
                                "repair", "validation");
                    }
                }
                if (v.namespace() != null && !v.namespace().matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
                    fail("repair.validation.namespace: '" + v.namespace() + "' is not a namespace name", "repair", "validation");
                }
            }
        }
        if (p.repeatOffenders() != null) {
            Policy.RepeatOffenders o = p.repeatOffenders();
            if (o.fatalXidsPerGpu() != null && o.fatalXidsPerGpu() < 1) {
                fail("repeatOffenders.fatalXidsPerGpu must be at least 1, got " + o.fatalXidsPerGpu(), "repeatOffenders",
                        "fatalXidsPerGpu");
            }
            if (o.remediationsPerNode() != null && o.remediationsPerNode() < 1) {
                fail("repeatOffenders.remediationsPerNode must be at least 1, got " + o.remediationsPerNode(), "repeatOffenders",
                        "remediationsPerNode");
            }
            duration(o.xidWindow(), "repeatOffenders", "xidWindow");
            duration(o.remediationWindow(), "repeatOffenders", "remediationWindow");
        }
        if (p.checkpoints() != null) {
            checkpoints(p.checkpoints());
        }
        if (p.rollouts() != null && p.rollouts().canary() != null) {
            canary(p.rollouts().canary());
        }
        if (p.silences() != null) {
            if (p.silences().maxDuration() == null) {
                fail("silences.maxDuration is required when silences is given, e.g. 4h", "silences");
            }
            duration(p.silences().maxDuration(), "silences", "maxDuration");
            java.time.Duration max;
            try {
                max = Durations.parse(p.silences().maxDuration());
            } catch (ArithmeticException e) {
                max = null; // more seconds than a Duration holds: refused below as too long
            }
            if (max == null || max.isZero() || max.isNegative() || max.compareTo(Policy.MAX_CHAT_SILENCE) > 0) {
                fail("silences.maxDuration must be more than 0 and at most 7d (longer silences belong in Alertmanager), got "
                        + p.silences().maxDuration(), "silences", "maxDuration");
            }
        }
        if (p.objectives() != null) {
            objectives(p.objectives());
        }
        if (p.drills() != null) {
            drills(p.drills());
        }
        if (p.approvers() != null && p.approvers().stream().anyMatch(a -> a == null || a.isBlank())) {
            fail("approvers: an entry is empty", "approvers");
        }
        return p;
    }

    /** An annotation key as Kubernetes allows one (optional DNS prefix, a name of at most 63 characters); a positive wait. */
    private void checkpoints(Policy.Checkpoints c) {
        if (c.annotation() != null && !c.annotation().matches(
                "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")) {
            fail("checkpoints.annotation: '" + c.annotation() + "' is not an annotation key (e.g. acceltriage.io/last-checkpoint)",
                    "checkpoints", "annotation");
        }
        if (c.tool() != null && !c.tool().matches("[a-z][a-z0-9_]*")) {
            fail("checkpoints.tool: '" + c.tool() + "' is not a tool name of tools/ (e.g. training_last_checkpoint)",
                    "checkpoints", "tool");
        }
        atMostADay(c.maxWait(), " (a degraded device is taken out within a day)", "checkpoints", "maxWait");
    }

    /** A duration more than 0 and at most 24h, or absent; else the key, why, and the value. */
    private void atMostADay(String value, String why, String... path) {
        duration(value, path);
        if (value == null) return;
        java.time.Duration d;
        try {
            d = Durations.parse(value);
        } catch (ArithmeticException e) {
            d = null; // more seconds than a Duration holds: refused as too long
        }
        if (d == null || d.isZero() || d.isNegative() || d.compareTo(java.time.Duration.ofHours(24)) > 0) {
            fail(String.join(".", path) + " must be more than 0 and at most 24h" + why + ", got " + value, path);
        }
    }

    /** The node-agent roles the canary may watch, as {@code knowledge/node-agents.yaml} names them. */
    static final List<String> CANARY_AGENTS = List.of("driver", "device-plugin", "exporter");

    private void canary(Policy.Canary c) {
        if (c.agents() == null || c.agents().isEmpty()) {
            fail("rollouts.canary.agents is required: the node-agent roles whose rollouts a canary validates, some of "
                    + CANARY_AGENTS, "rollouts", "canary", "agents");
        }
        for (String a : c.agents()) {
            if (!CANARY_AGENTS.contains(a)) {
                fail("rollouts.canary.agents: '" + a + "' is not a node-agent role; one of " + CANARY_AGENTS, "rollouts", "canary", "agents");
            }
        }
        if (c.nodes() != null && (c.nodes() < 1 || c.nodes() > 100)) {
            fail("rollouts.canary.nodes must be 1 to 100, got " + c.nodes(), "rollouts", "canary", "nodes");
        }
        if (c.level() != null && (c.level() < 1 || c.level() > 4)) {
            fail("rollouts.canary.level must be a dcgmi diag level, 1 to 4, got " + c.level(), "rollouts", "canary", "level");
        }
        atMostADay(c.timeout(), "", "rollouts", "canary", "timeout");
    }

    private void objectives(List<Policy.Objective> objectives) {
        Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < objectives.size(); i++) {
            Policy.Objective o = objectives.get(i);
            String at = "objectives[" + i + "]";
            if (o == null || o.name() == null || !o.name().matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
                failObjective(at + ".name is required: lower-case letters, digits and '-', e.g. device-mitigated"
                        + " (it labels the breach metric)", o == null ? null : o.name(), null);
            }
            if (!names.add(o.name())) {
                failObjective(at + ": the name '" + o.name() + "' is used twice; each objective needs its own", o.name(), null);
            }
            if (o.family() != null) {
                try {
                    Family.parse(o.family());
                } catch (IllegalArgumentException e) {
                    failObjective(at + ".family: " + e.getMessage(), o.name(), "family");
                }
            }
            if (o.pool() != null && !o.pool().matches("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")) {
                failObjective(at + ".pool must be a pool label's value, got '" + o.pool() + "'", o.name(), "pool");
            }
            if (o.gpuHoursPerWeek() != null) {
                if (o.stage() != null || o.within() != null) {
                    failObjective(at + ": give either stage and within (a time) or gpuHoursPerWeek (a loss budget), not both",
                            o.name(), "gpuHoursPerWeek");
                }
                if (o.family() != null) {
                    failObjective(at + ".family: a GPU-hours budget counts a pool's losses of every family; drop family",
                            o.name(), "family");
                }
                if (!(o.gpuHoursPerWeek() > 0)) {
                    failObjective(at + ".gpuHoursPerWeek must be more than 0, got " + o.gpuHoursPerWeek(), o.name(),
                            "gpuHoursPerWeek");
                }
                continue;
            }
            if (o.stage() == null || !Policy.OBJECTIVE_STAGES.contains(o.stage())) {
                failObjective(at + ".stage must be one of " + Policy.OBJECTIVE_STAGES + " (or give gpuHoursPerWeek), got '"
                        + o.stage() + "'", o.name(), "stage");
            }
            if (o.within() == null) {
                failObjective(at + ".within is required with a stage, e.g. 2m", o.name(), "stage");
            }
            java.time.Duration bound = null;
            try {
                bound = Durations.parse(o.within());
            } catch (IllegalArgumentException e) {
                failObjective(at + ".within: " + e.getMessage(), o.name(), "within");
            } catch (ArithmeticException e) {
                failObjective(at + ".within is longer than a Duration holds: " + o.within(), o.name(), "within");
            }
            if (bound.isZero()) {
                failObjective(at + ".within must be more than 0", o.name(), "within");
            }
        }
    }

    /**
     * The drills of {@code knowledge/drills/index.yaml} and of the operator's folder ({@code acceltriage.drills.dir},
     * its {@code NAME.yaml} files, which drill.DrillCatalog loads and checks), each at most once, each at least every 10 minutes.
     */
    private void drills(List<Policy.Drill> drills) {
        List<String> known = new java.util.ArrayList<>(DataFiles.resource(DRILLS_INDEX, DrillIndex.class).drills());
        operatorDrills().stream().filter(n -> !known.contains(n)).forEach(known::add);
        Set<String> names = new java.util.HashSet<>();
        for (int i = 0; i < drills.size(); i++) {
            Policy.Drill d = drills.get(i);
            String at = "drills[" + i + "]";
            if (d == null || d.name() == null || !known.contains(d.name())) {
                failItem("drills", at + ".name must be one of the drills " + known + ", got '" + (d == null ? null : d.name()) + "'",
                        d == null ? null : d.name(), null);
            }
            if (!names.add(d.name())) {
                failItem("drills", at + ": drill '" + d.name() + "' is scheduled twice; give it one entry", d.name(), null);
            }
            if (d.every() == null) {
                failItem("drills", at + ".every is required, e.g. 24h", d.name(), null);
            }
            java.time.Duration every = null;
            try {
                every = Durations.parse(d.every());
            } catch (IllegalArgumentException e) {
                failItem("drills", at + ".every: " + e.getMessage(), d.name(), "every");
            } catch (ArithmeticException e) {
                failItem("drills", at + ".every is longer than a Duration holds: " + d.every(), d.name(), "every");
            }
            if (every.compareTo(Policy.MIN_DRILL_INTERVAL) < 0) {
                failItem("drills", at + ".every must be at least 10m (each drill resets the sandbox), got " + d.every(), d.name(), "every");
            }
        }
    }

    static final String DRILLS_INDEX = "knowledge/drills/index.yaml";

    /** The names of the operator's drill files (their file names), when the service is configured with a folder of them. */
    static List<String> operatorDrills() {
        java.util.Optional<String> dir;
        try {
            dir = org.eclipse.microprofile.config.ConfigProvider.getConfig().getOptionalValue("acceltriage.drills.dir", String.class);
        } catch (IllegalStateException e) {
            dir = java.util.Optional.empty(); // no configuration (a plain unit test)
        }
        java.nio.file.Path folder = dir.map(String::strip).filter(d -> !d.isEmpty()).map(java.nio.file.Path::of).orElse(null);
        if (folder == null || !java.nio.file.Files.isDirectory(folder)) return List.of();
        try (var files = java.nio.file.Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml")).map(n -> n.substring(0, n.length() - 5))
                    .sorted().toList();
        } catch (java.io.IOException e) {
            return List.of(); // DrillCatalog refuses the start with the reason
        }
    }

    record DrillIndex(List<String> drills) {}

    /** The line of an objective's field: the first line under objectives: naming the objective, then the field from there. */
    private void failObjective(String reason, String name, String field) {
        failItem("objectives", reason, name, field);
    }

    /** The line of a list item's field: the first line under {@code section}: naming the item, then the field from there. */
    private void failItem(String section, String reason, String name, String field) {
        int from = lineOf(section) - 1;
        int line = from + 1;
        for (int i = from; i < lines.length && name != null; i++) {
            if (lines[i].matches(".*name\\s*:\\s*[\"']?" + java.util.regex.Pattern.quote(name) + "\\b.*")) {
                line = i + 1;
                for (int j = i; field != null && j < lines.length && (j == i || !lines[j].matches("\\s*-.*")); j++) {
                    if (lines[j].matches(".*(^|[\\s{,])" + field + "\\s*:.*")) {
                        line = j + 1;
                        break;
                    }
                }
                break;
            }
        }
        throw new DataFiles.InvalidDataFile(file + ":" + line + ": " + reason);
    }

    /**
     * The YAML parser reports an unknown key at the token after it, often the next line; point the
     * operator at the key's own line instead.
     */
    DataFiles.InvalidDataFile relocated(DataFiles.InvalidDataFile e) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(.*):(\\d+): unknown key '([^']+)'(.*)$", java.util.regex.Pattern.DOTALL)
                .matcher(e.getMessage());
        if (!m.matches() || !m.group(1).equals(file)) return e;
        int reported = Integer.parseInt(m.group(2));
        String key = m.group(3);
        for (int i = Math.min(reported, lines.length) - 1; i >= 0; i--) {
            if (lines[i].matches(".*(^|[\\s{,\"'-])\"?" + java.util.regex.Pattern.quote(key) + "\"?\\s*:.*")) {
                return new DataFiles.InvalidDataFile(file + ":" + (i + 1) + ": unknown key '" + key + "'" + m.group(4));
            }
        }
        return e;
    }

    static DayOfWeek day(String d) {
        for (DayOfWeek w : DayOfWeek.values()) {
            if (w.name().startsWith(d.toUpperCase()) && d.length() >= 3) return w;
        }
        return null;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static boolean known(String action) {
        try {
            ActionKind.parse(action);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void duration(String value, String... path) {
        if (value == null) return;
        try {
            Durations.parse(value);
        } catch (IllegalArgumentException e) {
            fail(String.join(".", path) + ": " + e.getMessage(), path);
        }
    }

    private void fail(String reason, String... path) {
        throw new DataFiles.InvalidDataFile(file + ":" + lineOf(path) + ": " + reason);
    }

    /**
     * The line of a key path: each key is searched after the line of its parent. Good enough for
     * policy files (block or flow style); falls back to the deepest key found.
     */
    int lineOf(String... path) {
        int from = 0;
        int found = 1;
        for (String key : path) {
            boolean hit = false;
            for (int i = from; i < lines.length; i++) {
                String l = lines[i];
                String code = l.contains("#") ? l.substring(0, l.indexOf('#')) : l;
                if (code.matches(".*(^|[\\s{,\"'-])\"?" + java.util.regex.Pattern.quote(key) + "\"?\\s*:.*")) {
                    found = i + 1;
                    from = i;
                    hit = true;
                    break;
                }
            }
            if (!hit) break;
        }
        return found;
    }
}
