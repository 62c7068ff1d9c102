package io.acceltriage.triage;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.agent.RulesPlanner;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.Finding;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.Rollouts;
import io.acceltriage.evidence.Source;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.Correlator;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.PolicyContext;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Triage of a fleet incident (an alert storm, see {@code incident/StormWindow}) in one pass: assess a
 * few member subjects with the ordinary responder, look for a recent rollout of a node-agent
 * DaemonSet (driver, device plugin, exporter), and conclude for the fleet. The same fault on many
 * nodes right after such a rollout is infrastructure, whatever each node looks like alone. A fleet
 * never gets node actions: cordoning half a pool for a bad rollout makes the outage, so a person is
 * told how many nodes and alerts it covers and what rolled out. Any other subject passes straight to
 * the responder.
 */
@Singleton
public final class FleetResponder {

    /** Members assessed in depth: enough to see agreement, few enough to stay fast in a storm. */
    static final int SAMPLE = 3;
    private static final int CITED_PER_MEMBER = 4;

    private final Responder responder;
    private final Rollouts rollouts;

    @Inject
    public FleetResponder(Responder responder, Rollouts rollouts) {
        this.responder = responder;
        this.rollouts = rollouts;
    }

    public Assessment assess(Subject subject, List<Alert> alerts) {
        if (!Correlator.isFleet(subject)) {
            return responder.assess(subject, alerts);
        }
        Instant at = alerts.stream().map(Alert::startsAt).filter(Objects::nonNull).max(Instant::compareTo).orElse(Instant.now());
        List<Subject> members = Correlator.membersOf(alerts);
        Set<String> nodes = new LinkedHashSet<>();
        alerts.forEach(a -> {
            String n = Correlator.nodeOf(a);
            if (n != null) nodes.add(n);
        });

        List<Evidence> items = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        List<Gap> gaps = new ArrayList<>();
        List<String> consulted = new ArrayList<>();
        Map<Family, Integer> votes = new LinkedHashMap<>();
        double agreeing = 0;
        for (Subject member : sample(members)) {
            List<Alert> own = alerts.stream().filter(a -> Correlator.subjectOf(a).equals(member)).toList();
            Assessment a = responder.assess(member, own);
            Diagnosis d = a.diagnosis();
            votes.merge(d.family(), 1, Integer::sum);
            List<String> cited = new ArrayList<>();
            for (String id : d.evidenceIds().stream().limit(CITED_PER_MEMBER).toList()) {
                a.evidence().byId(id).ifPresent(e -> {
                    Evidence copy = new Evidence("E" + (items.size() + 1), e.source(), member.name() + ": " + e.summary(), e.fact());
                    items.add(copy);
                    cited.add(copy.id());
                });
            }
            findings.add(new Finding(d.family(), d.confidence(), member.name() + ": " + d.cause(), cited, "member-" + member.key(),
                    false, d.degradation(), false, false));
            // What the model compares across members (pool, accelerators advertised): the node's capacity, cited or not.
            for (Evidence e : a.evidence().of(Facts.AcceleratorCapacity.class)) {
                if (items.stream().noneMatch(i -> i.fact().equals(e.fact()))) {
                    items.add(new Evidence("E" + (items.size() + 1), e.source(), member.name() + ": " + e.summary()
                            + (((Facts.AcceleratorCapacity) e.fact()).pool() == null ? "" : " (pool " + ((Facts.AcceleratorCapacity) e.fact()).pool() + ")"),
                            e.fact(), e.trust()));
                }
            }
            a.evidence().gaps().forEach(g -> gaps.add(new Gap(g.source(), member.name() + ": " + g.reason(), g.failed())));
            consulted.add("member " + member.key() + ": " + d.family().wireName() + " " + d.confidence());
        }
        List<Evidence> rollouts = this.rollouts.recentNodeAgentRollouts(at, items.size());
        items.addAll(rollouts);
        if (!rollouts.isEmpty()) {
            findings.add(new Finding(Family.INFRASTRUCTURE, 0.7, rollouts.get(0).summary(),
                    rollouts.stream().map(Evidence::id).toList(), "rollout", false, false, false, false));
        }
        consulted.add("fleet: " + alerts.size() + " alerts on " + nodes.size() + " nodes, " + members.size() + " subjects, "
                + Math.min(SAMPLE, members.size()) + " assessed");

        Family family = fleetFamily(votes, !rollouts.isEmpty());
        for (Finding f : findings) {
            if (f.family() == Family.INFRASTRUCTURE || f.family() == Family.DEVICE) agreeing = Math.max(agreeing, f.weight());
        }
        String alertname = subject.name().substring("fleet:".length());
        String scope = alertname + " on " + nodes.size() + " nodes (" + alerts.size() + " alerts, " + members.size() + " subjects)";
        String cause = switch (family) {
            case INFRASTRUCTURE -> "the same fault on many nodes: " + scope
                    + (rollouts.isEmpty() ? "" : ", right after " + rollouts.get(0).summary());
            case APPLICATION -> "the same application fault on many subjects: " + scope;
            case DEVICE -> "device faults on many nodes: " + scope;
            case NONE -> "an alert storm without a fault in the sampled members: " + scope;
        };
        double confidence = switch (family) {
            case NONE -> 0.3;
            case INFRASTRUCTURE -> round(1 - (1 - Math.max(agreeing, 0.3)) * (rollouts.isEmpty() ? 1 : 0.3));
            default -> round(findings.stream().filter(f -> f.family() == family).mapToDouble(Finding::weight).max().orElse(0.3));
        };
        if (family != Family.INFRASTRUCTURE && family != Family.NONE) {
            // The fleet's family is the members' when they agree on it; a node-level reading must not win a fleet vote.
            findings.add(new Finding(family, confidence, cause, List.of(), "fleet", false, false, false, false));
        }
        List<String> ids = findings.stream().filter(f -> f.family() == family).flatMap(f -> f.evidenceIds().stream())
                .distinct().toList();
        List<String> notes = new ArrayList<>();
        gaps.forEach(g -> notes.add(g.source().name().toLowerCase() + " unavailable: " + g.reason()));
        notes.add("fleet incident: members sampled, no node actions proposed");
        Diagnosis diagnosis = new Diagnosis(family, cause, confidence, ids, findings, false, notes);
        List<Judgement> judgements = responder.judge(RulesPlanner.pauseRollouts(diagnosis, rollouts),
                new PolicyContext(family, confidence, false));
        // One reason for the person, the proposals' verdicts in it: the fleet is one decision, not several.
        List<String> escalation = List.of("fleet-wide " + family.wireName() + " pattern: " + scope
                + (rollouts.isEmpty() ? "" : "; check and pause or roll back " + rollouts.get(0).summary())
                + "; no node was cordoned or drained: decide the fleet's remedy"
                + judgements.stream().map(FleetResponder::verdictLine).reduce("", String::concat));
        EvidenceBundle bundle = new EvidenceBundle(subject, at, null, null, false, items, List.of(), List.of(), gaps, consulted);
        List<String> alertNames = List.of(alertname + " ×" + alerts.size());
        String summary = family.wireName().toUpperCase() + " fleet incident (" + confidence + "): " + cause + ". "
                + "Evidence: " + String.join("; ", items.stream().filter(e -> ids.contains(e.id())).limit(6)
                        .map(e -> "[" + e.id() + "] " + e.summary()).toList())
                + ". No node actions: a fleet-wide pattern goes to a person. Needs a person: " + escalation.get(0);
        Assessment rules = new Assessment(RulesPlanner.BY, subject, alertNames, bundle, diagnosis, judgements, escalation, summary, null);
        // The model investigates what the affected nodes share; its proposals pass the same policy, and
        // its failure, or a family the rules do not share, leaves this assessment or escalates it.
        return responder.consult(rules, new PolicyContext(family, confidence, false));
    }

    /** The policy every verdict of both is judged by. */
    io.acceltriage.policy.PolicyEngine policy() {
        return responder.policy();
    }

    /** The model's summary of a decided assessment (a fleet's or a member subject's), asked for after the decision. */
    public java.util.Optional<io.acceltriage.agent.llm.ModelAgent.Summarised> summarise(Assessment decided) {
        return responder.summarise(decided);
    }

    private static String verdictLine(Judgement j) {
        String name = j.proposal().name();
        return switch (j.verdict().decision()) {
            case APPROVE -> "; " + name + " waits for a person's approval";
            case DENY -> "; policy refused " + name + ": " + String.join("; ", j.verdict().reasons());
            default -> "; " + name + (j.verdict().dryRun() ? " runs as a dry run" : " runs now");
        };
    }

    /** First, middle and last member: a storm's edges and its bulk. */
    static List<Subject> sample(List<Subject> members) {
        if (members.size() <= SAMPLE) return members;
        Set<Subject> out = new LinkedHashSet<>();
        for (int i = 0; i < SAMPLE; i++) {
            out.add(members.get((int) ((long) i * (members.size() - 1) / (SAMPLE - 1))));
        }
        return List.copyOf(out);
    }

    /**
     * Members that agree on infrastructure or device across many nodes are one infrastructure fault
     * (a device does not fail on many nodes at once; what they share — a driver, a plugin — does);
     * so is a storm that follows a node-agent rollout, even when the sampled members look healthy.
     */
    static Family fleetFamily(Map<Family, Integer> votes, boolean rollout) {
        int infra = votes.getOrDefault(Family.INFRASTRUCTURE, 0) + votes.getOrDefault(Family.DEVICE, 0);
        int app = votes.getOrDefault(Family.APPLICATION, 0);
        if (infra > 0 && (infra >= 2 || rollout) && infra >= app) return Family.INFRASTRUCTURE;
        if (app > 0 && app > infra) return Family.APPLICATION;
        if (rollout) return Family.INFRASTRUCTURE;
        if (infra > 0) return votes.getOrDefault(Family.DEVICE, 0) > votes.getOrDefault(Family.INFRASTRUCTURE, 0)
                ? Family.DEVICE : Family.INFRASTRUCTURE;
        return Family.NONE;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
