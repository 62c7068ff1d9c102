package io.acceltriage.triage;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.agent.Plan;
import io.acceltriage.agent.RulesPlanner;
import io.acceltriage.agent.SummaryWriter;
import io.acceltriage.agent.llm.ModelAgent;
import io.acceltriage.diagnosis.Classifier;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.EvidenceGatherer;
import io.acceltriage.incident.Alert;
import io.acceltriage.incident.Subject;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.PolicyContext;
import io.acceltriage.policy.PolicyEngine;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One triage, start to verdicts: gather evidence, classify, plan, and judge every proposal against
 * policy. It decides; it does not act — the executor carries out what was allowed. The same
 * responder serves live incidents and scenario replay. With a model configured, the model reviews
 * the rules' assessment under the guardrails of agent/llm.
 */
public final class Responder {

    private final EvidenceGatherer gatherer;
    private final Classifier classifier;
    private final RulesPlanner planner;
    private final PolicyEngine policy;
    private final SummaryWriter summaries;
    private final ModelStep agent;
    /** The fault history across incidents; null in replay, where each scenario stands alone. */
    private final GpuMemory memory;
    /** Evidence laid over the gathered (a shadow drill's own fault); null in replay. */
    private final io.acceltriage.evidence.EvidenceOverlay overlay;

    /**
     * What the model does after the rules: {@link ModelAgent#review} (investigate and summarise every
     * incident, as replay measures it) or {@link ModelAgent#respond} (investigate only where it adds
     * something, live), and, live, the summary of the decided assessment, asked for once the decision
     * is stored and carried out.
     */
    interface ModelStep {
        Assessment after(Assessment rules, Function<Proposal, Verdict> policy, SummaryWriter templates);

        /** The model's summary of a decided assessment; empty when this step writes none afterwards. */
        default Optional<ModelAgent.Summarised> summarise(Assessment decided) {
            return Optional.empty();
        }

        /** The live step of {@code agent}: investigate where the rules are weak, summarise after the decision. */
        static ModelStep live(ModelAgent agent) {
            return new ModelStep() {
                @Override
                public Assessment after(Assessment rules, Function<Proposal, Verdict> policy, SummaryWriter templates) {
                    return agent.respond(rules, policy, templates);
                }

                @Override
                public Optional<ModelAgent.Summarised> summarise(Assessment decided) {
                    return agent.summarise(decided);
                }
            };
        }
    }

    /** Which alerts a tenant's own Prometheus evaluated (the platform's namespaces are knowledge, node-agents.yaml). */
    private static final AlertOrigin ORIGINS = new AlertOrigin(io.acceltriage.evidence.NodeAgents.load().platformNamespaces());

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(Responder.class);

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    public Responder(EvidenceGatherer gatherer, Classifier classifier, RulesPlanner planner, PolicyEngine policy,
            SummaryWriter summaries) {
        this(gatherer, classifier, planner, policy, summaries, null);
    }

    /** {@code agent}: the model's step after the rules' assessment; null = rules only. */
    Responder(EvidenceGatherer gatherer, Classifier classifier, RulesPlanner planner, PolicyEngine policy,
            SummaryWriter summaries, ModelStep agent) {
        this(gatherer, classifier, planner, policy, summaries, agent, null, null);
    }

    private Responder(EvidenceGatherer gatherer, Classifier classifier, RulesPlanner planner, PolicyEngine policy,
            SummaryWriter summaries, ModelStep agent, GpuMemory memory, io.acceltriage.evidence.EvidenceOverlay overlay) {
        this.memory = memory;
        this.overlay = overlay;
        this.agent = agent;
        this.gatherer = gatherer;
        this.classifier = classifier;
        this.planner = planner;
        this.policy = policy;
        this.summaries = summaries;
    }

    /** The policy this responder judges by: the triage confirms allowed actions with it before recording them. */
    PolicyEngine policy() {
        return policy;
    }

    /** This responder, reading the fault history of the GPUs it sees faulting into their evidence. */
    Responder remembering(GpuMemory memory) {
        return new Responder(gatherer, classifier, planner, policy, summaries, agent, memory, overlay);
    }

    /** This responder, laying {@code overlay}'s evidence over what it gathers before it classifies. */
    Responder overlaying(io.acceltriage.evidence.EvidenceOverlay overlay) {
        return new Responder(gatherer, classifier, planner, policy, summaries, agent, memory, overlay);
    }

    public Assessment assess(Subject subject, List<Alert> alerts) {
        java.time.Instant at = alerts.stream().map(Alert::startsAt).filter(java.util.Objects::nonNull)
                .max(java.time.Instant::compareTo).orElse(java.time.Instant.now());
        long t0 = System.nanoTime();
        io.acceltriage.policy.Policy pol = this.policy.policy();
        EvidenceBundle gathered = pol == null ? gatherer.gather(subject, at)
                : gatherer.gather(subject, at, pol.checkpointAnnotation(), pol.checkpointTool());
        EvidenceBundle bundle = remembered(overlay == null ? gathered : overlay.apply(gathered, alerts));
        long t1 = System.nanoTime();
        Diagnosis diagnosis = classifier.classify(bundle);
        long t2 = System.nanoTime();
        PolicyEngine policy = this.policy.forOneAssessment();
        Plan plan = planner.plan(diagnosis, bundle, policy.routes());
        long t3 = System.nanoTime();
        PolicyContext ctx = new PolicyContext(diagnosis.family(), diagnosis.confidence(), diagnosis.degradation());
        List<Judgement> judgements = new ArrayList<>();
        List<String> escalation = new ArrayList<>(plan.escalationReasons());
        // An alert a tenant's own rule raised is suspicion for a person, whatever the evidence shows.
        escalation.addAll(ORIGINS.escalations(alerts));
        for (Proposal p : plan.proposals()) {
            Verdict v = policy.decide(p, ctx);
            judgements.add(new Judgement(p, v));
            if (v.decision() == Decision.DENY) {
                escalation.add("policy refused " + p.name() + ": " + String.join("; ", v.reasons()));
                if (memory != null && v.rule() != null && v.rule().startsWith("repeatOffenders.")) {
                    // Escalated for replacement: support needs the faults themselves, with their times.
                    String[] target = p.target().split("/", 2);
                    escalation.add(memory.quote(target[0], target.length > 1 ? target[1] : null,
                            at.minus(max(policy.policy().xidWindow(), policy.policy().remediationWindow())), bundle));
                }
            } else if (v.decision() == Decision.APPROVE) {
                escalation.add(p.name() + " waits for a person's approval");
            }
            if (memory != null && p.kind() == ActionKind.REPLACE_NODE && v.decision() != Decision.DENY) {
                // The hardware goes to support: they need its faults, every GPU of the node, with their times.
                escalation.add(memory.quote(p.target(), null,
                        at.minus(max(policy.policy().xidWindow(), policy.policy().remediationWindow())), bundle));
            }
        }
        long t4 = System.nanoTime();
        List<String> alertNames = alerts.stream().map(a -> a.name() + summaryLabel(a)).distinct().toList();
        Assessment unsummarised = new Assessment(RulesPlanner.BY, subject, alertNames, bundle, diagnosis, judgements, escalation,
                null, null).withWorkLost();
        Assessment rules = unsummarised.withSummary(summaries.write(unsummarised));
        if (LOG.isDebugEnabled()) {
            LOG.debugf("assess %s: gather %d ms, classify %d ms, plan %d ms, judge %d ms, summarise %d ms", subject.key(),
                    ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3), ms(System.nanoTime() - t4));
        }
        // The model investigates after the rules, which are its cross-check and its fallback.
        if (agent == null) return rules;
        Assessment reviewed = agent.after(rules, p -> policy.decide(p, ctx), summaries).withWorkLost();
        return reviewed;
    }

    /**
     * The model's summary of an assessment this responder (or a fleet's) decided, for after it was
     * stored and carried out; empty in rules mode, in replay (its summary is part of the review) and
     * when the model already failed on the incident.
     */
    Optional<ModelAgent.Summarised> summarise(Assessment decided) {
        return agent == null ? Optional.empty() : agent.summarise(decided);
    }

    /** The model's step over an assessment planned outside this responder (a fleet's), judged by the same policy. */
    Assessment consult(Assessment planned, PolicyContext ctx) {
        if (agent == null) return planned;
        PolicyEngine policy = this.policy.forOneAssessment();
        return agent.after(planned, p -> policy.decide(p, ctx), summaries);
    }

    /** Policy's verdicts on proposals planned outside this responder (a fleet's), against one view of the cluster. */
    List<Judgement> judge(List<Proposal> proposals, PolicyContext ctx) {
        PolicyEngine policy = this.policy.forOneAssessment();
        return proposals.stream().map(p -> new Judgement(p, policy.decide(p, ctx))).toList();
    }

    /** The bundle with the fault history of the GPUs that report an XID now. */
    private EvidenceBundle remembered(EvidenceBundle b) {
        if (memory == null) return b;
        List<io.acceltriage.evidence.Evidence> past = memory.recall(b);
        if (past.isEmpty()) return b;
        List<io.acceltriage.evidence.Evidence> items = new ArrayList<>(b.items());
        items.addAll(past);
        List<String> consulted = new ArrayList<>(b.consulted());
        consulted.add("fault history: " + past.size() + " earlier XIDs on the GPUs of " + String.join(", ",
                past.stream().map(e -> ((io.acceltriage.evidence.Facts.PastXid) e.fact()).node()).distinct().toList()));
        return new EvidenceBundle(b.subject(), b.at(), b.node(), b.pool(), b.nodeCordoned(), List.copyOf(items), b.pods(),
                b.workloads(), b.gaps(), List.copyOf(consulted));
    }

    private static java.time.Duration max(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String summaryLabel(Alert a) {
        String node = a.label("node");
        return node == null ? "" : " (" + node + ")";
    }
}
