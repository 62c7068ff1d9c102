package io.acceltriage.scenario;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.agent.llm.ModelAgent;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.Correlator;
import io.acceltriage.incident.MemoryIndex;
import io.acceltriage.incident.StormWindow;
import io.acceltriage.incident.Subject;
import io.acceltriage.incident.SubjectResolver;
import io.acceltriage.ingest.AlertmanagerPayloads;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.SimulatedApiServer;
import io.acceltriage.store.Json;
import io.acceltriage.triage.FleetResponder;
import io.acceltriage.triage.Responder;
import io.acceltriage.triage.ResponderFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replays a scenario offline: its objects and logs are served by a simulated API server of its own,
 * its scrapes by a recorded metrics source, and the same responder as production assesses every
 * subject the trigger names. Nothing is executed: replay compares proposals and verdicts only.
 */
public final class Replay {

    private static final Pattern POD_REF = Pattern.compile("\\b([a-z0-9][a-z0-9-]*)/([a-z0-9][a-z0-9.-]*[a-z0-9])\\b");

    private final ResponderFactory factory;
    private final Policy defaultPolicy;
    private final ModelAgent agent;
    private io.acceltriage.sandbox.RequestGate observer = io.acceltriage.sandbox.RequestGate.OPEN;

    /** Replays with the rules only, whatever model the service is configured with. */
    public Replay(ResponderFactory factory, Policy defaultPolicy) {
        this(factory, defaultPolicy, null);
    }

    /** {@code agent}: the model that reviews each assessment (eval --llm, tests, the benchmark); null = rules only. */
    public Replay(ResponderFactory factory, Policy defaultPolicy, ModelAgent agent) {
        this.factory = factory;
        this.defaultPolicy = defaultPolicy;
        this.agent = agent;
    }

    /**
     * Shows every request the responder makes of each scenario's API server to this gate (after the scenario's
     * objects are in place): what the shipped RBAC must grant is what replay asks for.
     */
    public Replay observing(io.acceltriage.sandbox.RequestGate gate) {
        this.observer = gate == null ? io.acceltriage.sandbox.RequestGate.OPEN : gate;
        return this;
    }

    /** What the responder concluded for a scenario, every subject assessed. */
    public record Outcome(Family family, List<Assessment> assessments) {

        public Set<String> proposals() {
            Set<String> out = new LinkedHashSet<>();
            assessments.forEach(a -> a.judgements().forEach(j -> out.add(j.proposal().name())));
            return out;
        }

        public boolean escalates() {
            return assessments.stream().anyMatch(Assessment::escalate);
        }
    }

    public ReplayResult run(Path file, Scenario s, Policy override) {
        return judge(s, replay(file, s, override));
    }

    /** Compares an outcome with what the scenario expects. */
    public ReplayResult judge(Scenario s, Outcome outcome) {
        Scenario.Expect expect = s.spec().expect();
        List<String> problems = new ArrayList<>();
        boolean familyRight = outcome.family().wireName().equals(expect.family());
        if (!familyRight) {
            problems.add("family " + outcome.family().wireName() + ", expected " + expect.family());
        }
        Set<String> proposals = outcome.proposals();
        boolean proposalsRight = true;
        for (String want : orEmpty(expect.actions())) {
            if (proposals.stream().noneMatch(p -> matches(p, want))) {
                problems.add("missing " + want);
                proposalsRight = false;
            }
        }
        for (String banned : orEmpty(expect.forbidden())) {
            for (String p : proposals) {
                if (matches(p, banned)) {
                    problems.add("forbidden " + p);
                    proposalsRight = false;
                }
            }
        }
        for (String want : orEmpty(expect.atCheckpoint())) {
            boolean waits = outcome.assessments().stream().flatMap(a -> a.judgements().stream())
                    .anyMatch(j -> j.proposal().atCheckpoint() && matches(j.proposal().name(), want));
            if (!waits) {
                problems.add("not at the next checkpoint: " + want);
                proposalsRight = false;
            }
        }
        if (expect.workLost() != null) {
            for (Map.Entry<String, Double> want : expect.workLost().entrySet()) {
                java.util.Optional<io.acceltriage.agent.WorkLost> lost = outcome.assessments().stream().flatMap(a -> a.workLost().stream())
                        .filter(w -> w.workload().equals(want.getKey())).findFirst();
                if (lost.isEmpty() || Math.abs(lost.get().gpuHours() - want.getValue()) > 0.1) {
                    problems.add("work lost by " + want.getKey() + ": " + lost.map(w -> w.gpuHours() + " GPU-hours").orElse("not stated")
                            + ", expected " + want.getValue());
                    proposalsRight = false;
                }
            }
        }
        if (expect.refused() != null) {
            for (Map.Entry<String, String> want : expect.refused().entrySet()) {
                boolean refused = outcome.assessments().stream().flatMap(a -> a.judgements().stream())
                        .anyMatch(j -> matches(j.proposal().name(), want.getKey()) && j.verdict().decision() == io.acceltriage.policy.Decision.DENY
                                && String.join("; ", j.verdict().reasons()).contains(want.getValue() == null ? "" : want.getValue()));
                if (!refused) {
                    problems.add("not refused" + (want.getValue() == null || want.getValue().isEmpty() ? "" : " with \"" + want.getValue() + "\"")
                            + ": " + want.getKey());
                    proposalsRight = false;
                }
            }
        }
        if (expect.escalate() != null && expect.escalate() != outcome.escalates()) {
            problems.add(expect.escalate() ? "did not escalate" : "escalated but must not page");
        }
        return new ReplayResult(s.name(), expect.family(), outcome.family().wireName(), familyRight, proposalsRight,
                problems, new ArrayList<>(proposals), explain(outcome));
    }

    public Outcome replay(Path file, Scenario s, Policy override) {
        Policy policy = override != null ? override : s.spec().policy() == null || s.spec().policy().isBlank() ? defaultPolicy
                : loadPolicy(file.resolveSibling(s.spec().policy()));
        try (SimulatedApiServer server = SimulatedApiServer.start()) {
            for (Map<String, Object> object : orEmpty(s.spec().objects())) {
                server.apply(object);
            }
            if (s.spec().logs() != null) {
                s.spec().logs().forEach((key, text) -> putLog(server, key, text));
            }
            if (s.spec().validation() != null) markValidated(server, s.spec().validation());
            server.gate(observer);
            Responder responder = s.spec().history() == null || s.spec().history().isEmpty()
                    ? factory.build(new io.acceltriage.cluster.KubeApi(server.client()), new RecordedMetrics(s.spec().metrics()), policy, agent)
                    : factory.build(new io.acceltriage.cluster.KubeApi(server.client()), new RecordedMetrics(s.spec().metrics()), policy, agent,
                            pastFaults(s.spec().history(), Instant.now()));
            FleetResponder fleet = new FleetResponder(responder, new io.acceltriage.evidence.Rollouts(server.client(), factory.nodeAgents()));
            // The live correlation, over the scenario's world: its alerts form the incidents production would open.
            Correlator correlator = new Correlator(new SubjectResolver(new io.acceltriage.cluster.Membership(server.client())), StormWindow.defaults());
            MemoryIndex incidents = new MemoryIndex();
            incidents.addAll(correlator, alertsOf(s), a -> a.startsAt() == null ? Instant.now() : a.startsAt());
            Map<Subject, List<Alert>> bySubject = new LinkedHashMap<>();
            incidents.groups().forEach(g -> bySubject.put(g.subject(), g.alerts()));
            if (s.spec().ask() != null) {
                subjectOfQuestion(s).filter(q -> incidents.find(List.of(q.key())).isEmpty())
                        .ifPresent(subject -> bySubject.putIfAbsent(subject, List.of()));
            }
            List<Assessment> assessments = new ArrayList<>();
            bySubject.forEach((subject, as) -> assessments.add(fleet.assess(subject, as)));
            return new Outcome(overallFamily(assessments), assessments);
        }
    }

    /** What validate-node leaves on the node after the scenario's recorded {@code dcgmi diag -j} run. */
    private static void markValidated(SimulatedApiServer server, Scenario.Validation v) {
        String json = Json.write(v.diag());
        Instant at = Instant.now();
        server.client().nodes().withName(v.node()).edit(n -> io.acceltriage.action.ValidateNode.markedWith(n, json, at).orElse(n));
    }

    /** A scenario's {@code history} as the repeat-offender rule counts it: each entry one fatal XID sighting, {@code ago} before {@code now}. */
    static io.acceltriage.policy.FaultCounts pastFaults(List<Scenario.PastFault> history, Instant now) {
        record Seen(String node, String gpu, Instant at) {}
        List<Seen> seen = history.stream().map(f -> new Seen(f.node(), f.gpu(), now.minus(io.acceltriage.policy.Durations.parse(f.ago()))))
                .toList();
        return new io.acceltriage.policy.FaultCounts() {
            @Override
            public List<Instant> fatalXids(String node, String gpu, Instant since) {
                return seen.stream().filter(f -> f.node().equals(node) && f.gpu().equals(gpu) && !f.at().isBefore(since)).map(Seen::at).toList();
            }

            @Override
            public Map<String, List<Instant>> fatalXidsByGpu(String node, Instant since) {
                Map<String, List<Instant>> out = new java.util.TreeMap<>();
                seen.stream().filter(f -> f.node().equals(node) && !f.at().isBefore(since))
                        .forEach(f -> out.computeIfAbsent(f.gpu(), k -> new ArrayList<>()).add(f.at()));
                return out;
            }
        };
    }

    /** The incident's family: the most confident fault among the subjects, none when no subject shows one. */
    static Family overallFamily(List<Assessment> assessments) {
        return assessments.stream().filter(a -> a.diagnosis().family() != Family.NONE)
                .max(Comparator.comparingDouble(a -> a.diagnosis().confidence()))
                .map(a -> a.diagnosis().family()).orElse(Family.NONE);
    }

    private static List<Alert> alertsOf(Scenario s) {
        List<Map<String, Object>> raw = new ArrayList<>();
        if (s.spec().alert() != null) raw.add(s.spec().alert());
        raw.addAll(orEmpty(s.spec().alerts()));
        if (raw.isEmpty()) return List.of();
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("version", "4");
        payload.put("groupKey", "scenario/" + s.name());
        payload.put("status", "firing");
        payload.put("alerts", raw);
        return AlertmanagerPayloads.parse(Json.write(payload).getBytes(StandardCharsets.UTF_8));
    }

    /** A question names its subject: "ns/pod" or a node of the scenario. */
    private static java.util.Optional<Subject> subjectOfQuestion(Scenario s) {
        String ask = s.spec().ask();
        Matcher m = POD_REF.matcher(ask);
        if (m.find()) return java.util.Optional.of(Subject.pod(m.group(1), m.group(2)));
        for (Map<String, Object> o : orEmpty(s.spec().objects())) {
            if ("Node".equals(o.get("kind")) && o.get("metadata") instanceof Map<?, ?> md && md.get("name") instanceof String n
                    && ask.contains(n)) {
                return java.util.Optional.of(Subject.node(n));
            }
        }
        return java.util.Optional.empty();
    }

    private static void putLog(SimulatedApiServer server, String key, String text) {
        boolean previous = key.endsWith("#previous");
        String[] parts = (previous ? key.substring(0, key.length() - "#previous".length()) : key).split("/");
        if (parts.length != 3) {
            throw new IllegalArgumentException("log key '" + key + "' must be namespace/pod/container[#previous]");
        }
        server.putLog(parts[0], parts[1], parts[2], previous, text);
    }

    private static Policy loadPolicy(Path path) {
        try {
            return Policy.parse(path.toString(), Files.readAllBytes(path));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(path + ": cannot read the scenario's policy: " + e.getMessage());
        }
    }

    static boolean matches(String proposal, String entry) {
        String e = current(entry);
        return e.contains(":") ? proposal.equals(e) : proposal.startsWith(e + ":");
    }

    /** The entry under the kind's current wire name: a scenario naming a former one (repair-node) means what it meant. */
    static String current(String entry) {
        int colon = entry.indexOf(':');
        String kind = colon < 0 ? entry : entry.substring(0, colon);
        try {
            return io.acceltriage.policy.ActionKind.parse(kind).wireName() + (colon < 0 ? "" : entry.substring(colon));
        } catch (IllegalArgumentException e) {
            return entry; // the loader has already refused unknown kinds
        }
    }

    private static <T> List<T> orEmpty(List<T> l) {
        return l == null ? List.of() : l;
    }

    /** For --verbose: each subject's findings with the evidence they rest on, and each verdict. */
    static List<String> explain(Outcome outcome) {
        List<String> out = new ArrayList<>();
        // What the policy would have done, before the detail: run on its own, wait for a person, or refuse.
        Map<String, List<String>> byDecision = new LinkedHashMap<>();
        byDecision.put("would run", new ArrayList<>());
        byDecision.put("would wait for approval", new ArrayList<>());
        byDecision.put("denied", new ArrayList<>());
        for (Assessment a : outcome.assessments()) {
            for (Judgement j : a.judgements()) {
                String key = switch (j.verdict().decision()) {
                    case ALLOW -> "would run";
                    case APPROVE -> "would wait for approval";
                    case DENY -> "denied";
                };
                byDecision.get(key).add(j.proposal().name() + (j.verdict().dryRun() ? " (dry run)" : "")
                        + (j.verdict().decision() == io.acceltriage.policy.Decision.DENY ? " [" + j.verdict().rule() + "]" : ""));
            }
        }
        byDecision.forEach((k, v) -> out.add(k + ": " + (v.isEmpty() ? "nothing" : String.join(", ", v))));
        for (Assessment a : outcome.assessments()) {
            out.add(a.subject().key() + ": " + a.diagnosis().family().wireName() + " " + a.diagnosis().confidence());
            for (var f : a.diagnosis().findings()) {
                String ev = f.evidenceIds().stream().map(id -> a.evidence().byId(id).map(e -> e.summary()).orElse(id))
                        .reduce((x, y) -> x + " | " + y).orElse("");
                out.add(String.format("  %-14s %.2f %s ← %s", f.family().wireName(), f.weight(), f.cause(), ev));
            }
            for (Judgement j : a.judgements()) {
                out.add("  " + j.proposal().name() + " → " + j.verdict().decision().wireName() + " by " + j.verdict().rule()
                        + " (" + String.join("; ", j.verdict().reasons()) + ")");
            }
            a.evidence().gaps().forEach(g -> out.add("  gap: " + g.reason()));
        }
        return out;
    }
}
