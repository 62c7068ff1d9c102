package io.acceltriage.agent.llm;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;
import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.agent.ModelCall;
import io.acceltriage.agent.ModelRun;
import io.acceltriage.agent.Redaction;
import io.acceltriage.agent.SummaryWriter;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.diagnosis.Runbooks;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.PrometheusSource;
import io.acceltriage.evidence.Toolsets;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The model's part of a triage, run after the deterministic one: investigate (the bundle is in the
 * first message, so a typical incident needs one or two round trips), then summarise (one more). The
 * rules' assessment is both the cross-check and the fallback: whatever the model does wrong — fails,
 * loops, overspends, disagrees, cites what does not exist — the incident is still handled, the
 * guardrail that fired is recorded, and nothing the model says runs without policy's verdict.
 */
public final class ModelAgent {

    private static final Logger LOG = Logger.getLogger(ModelAgent.class);

    private final LlmSettings settings;
    private final ChatModel model;
    private final Toolsets toolsets;
    private final HistoryTools history;
    /** Runs the declarative tools of {@code tools/}; null when no Prometheus is configured. */
    private final PrometheusSource prometheus;
    /** The runbooks an investigation may read the incident's from; null when none are loaded. */
    private final Runbooks runbooks;
    private final OutboundText redactor = new OutboundText();
    private final String investigatePrompt = Prompts.load("investigate");
    private final String summarisePrompt = Prompts.load("summarise");
    private final String chatPrompt = Prompts.load("chat");
    private volatile double investigateBelow = ModelScope.UNSURE_BELOW;

    ModelAgent(LlmSettings settings, ChatModel model, Toolsets toolsets, HistoryTools history, PrometheusSource prometheus,
            Runbooks runbooks) {
        this.runbooks = runbooks;
        this.settings = settings;
        this.model = model;
        this.toolsets = toolsets;
        this.history = history;
        this.prometheus = prometheus;
    }

    /**
     * The real LangChain4j OpenAI client for these settings (inside Quarkus it rides on the
     * quarkus-langchain4j REST client). Built here, not injected, so tests and the benchmark can point
     * an agent at a scripted server without a Quarkus profile. {@code prometheus} (null for none) backs
     * the declarative tools of {@code tools/}; {@code runbooks} (null for none) the incident's runbook.
     */
    public static ModelAgent build(LlmSettings settings, Toolsets toolsets, HistoryTools history, Consumer<ModelCall> listeners,
            PrometheusSource prometheus, Runbooks runbooks) {
        var builder = OpenAiChatModel.builder()
                .baseUrl(settings.baseUrl())
                .apiKey(settings.apiKey() == null ? "unused" : settings.apiKey().reveal())
                .modelName(settings.model())
                .timeout(settings.timeout())
                .maxRetries(settings.maxRetries())
                .temperature(0.0)
                .listeners(List.of(new CallLedger(settings.model(), listeners)));
        if (settings.jsonSchema()) {
            builder.supportedCapabilities(Capability.RESPONSE_FORMAT_JSON_SCHEMA).strictJsonSchema(false);
        }
        return new ModelAgent(settings, builder.build(), toolsets, history, prometheus, runbooks);
    }

    /** The rules' confidence below which the model investigates ({@code acceltriage.llm.investigate-below}). */
    ModelAgent investigatingBelow(double confidence) {
        this.investigateBelow = confidence;
        return this;
    }

    public String model() {
        return settings.model();
    }

    /**
     * The live service's decision step: an investigation where {@link ModelScope} says the rules are
     * weak, else the rules' assessment as it is. The summary is not asked for here: it is written
     * after the decision is stored and carried out ({@link #summarise}), so a slow model never holds
     * a decision. Either way the rules' assessment is what stands when the model fails, and policy
     * judges whatever it proposes.
     */
    public Assessment respond(Assessment rules, Function<Proposal, Verdict> policy, SummaryWriter templates) {
        Optional<String> investigate = ModelScope.investigateBecause(rules, investigateBelow);
        if (investigate.isEmpty()) return rules;
        LOG.debugf("model %s investigates %s: %s", settings.model(), rules.subject().key(), investigate.get());
        return investigate(rules, policy, templates, investigate.get());
    }

    /** A summary asked for after the decision: the assessment with it (and the model's run grown by it), and the summary's own run. */
    public record Summarised(Assessment assessment, ModelRun run) {
        public boolean accepted() {
            return run.summaryAccepted();
        }
    }

    /**
     * The human summary of a decided assessment (the rules', or an investigation's): nothing the model
     * writes here can change a decision. A failed or rejected summary leaves the template's, and says
     * so in the run. Empty when the model already failed on this incident's investigation: the rules
     * took over and the template stands.
     */
    public Optional<Summarised> summarise(Assessment decided) {
        ModelRun prior = decided.model();
        if (prior != null && prior.fallback() != null) return Optional.empty();
        RunGuard guard = new RunGuard(settings);
        // One budget per incident: the summary may spend only what the investigation left.
        if (prior != null) guard.spent((int) prior.tokensIn(), (int) prior.tokensOut());
        List<String> guardrails = new ArrayList<>();
        List<Redaction> redactions = new ArrayList<>();
        CallLedger.Run run = new CallLedger.Run(guard, "summarise").because(prior == null
                ? "the summary of the rules' decision (" + decided.diagnosis().family().wireName() + ", confidence "
                        + decided.diagnosis().confidence() + ")"
                : "the summary of the model's investigation (" + prior.family() + ")");
        try (run) {
            Family family = prior == null || prior.family() == null ? decided.diagnosis().family() : Family.parse(prior.family());
            String cause = prior == null || prior.cause() == null ? decided.diagnosis().cause() : prior.cause();
            List<String> cited = prior == null ? List.of() : prior.citedEvidence();
            Optional<String> summary = modelSummary(run, decided, family, cause, cited, redactions, guardrails);
            // The guardrail that fired is the reason the template stands: recorded as the fallback.
            String fallback = summary.isPresent() ? null : guardrails.remove(guardrails.size() - 1);
            if (fallback != null) {
                guardrails.add("fallback: " + fallback);
                LOG.warnf("model %s did not summarise %s, the rules' summary stands: %s", settings.model(), decided.subject().key(), fallback);
            }
            ModelRun own = ModelRun.of(settings.model(), null, null, List.of(), null, summary.isPresent(), run.calls, redactions,
                    guardrails, fallback);
            ModelRun merged = prior == null ? own : ModelRun.of(prior.model(), prior.family(), prior.cause(), prior.citedEvidence(),
                    prior.agreesWithRules(), summary.isPresent(), concat(prior.calls(), own.calls()),
                    concat(prior.redactions(), own.redactions()), concat(prior.guardrails(), own.guardrails()), null)
                    .withTools(prior.tools());
            return Optional.of(new Summarised(new Assessment(decided.mode(), decided.subject(), decided.alerts(), decided.evidence(),
                    decided.diagnosis(), decided.judgements(), decided.escalationReasons(), summary.orElse(decided.summary()), merged),
                    own));
        }
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * One summarise round trip over {@code draft}; empty (with the guardrail that fired added) when
     * the call failed or the text cites what the bundle does not hold.
     */
    private Optional<String> modelSummary(CallLedger.Run run, Assessment draft, Family family, String cause, List<String> cited,
            List<Redaction> redactions, List<String> guardrails) {
        try {
            OutboundText.Redacted input = redactor.redact(BundleText.forSummary(draft, family, cause, cited), "summary input");
            redactions.addAll(input.redactions());
            Summariser summariser = AiServices.builder(Summariser.class).chatModel(model)
                    .chatMemoryProvider(ModelAgent::freshMemory)
                    .systemMessageProvider(id -> summarisePrompt).build();
            run.begin("summarise");
            HumanSummary s = call(run, () -> summariser.summarise(input.text()));
            Optional<String> problem = s == null ? Optional.of("no summary")
                    : CitationCheck.problem(s.text(), s.evidenceIds(), draft.evidence());
            if (problem.isEmpty()) return Optional.of(s.text().strip());
            guardrails.add("citation: summary rejected, template used: " + problem.get());
        } catch (RunStopped e) {
            guardrails.add("summary failed, template used: " + e.getMessage());
        }
        return Optional.empty();
    }

    /**
     * Replay's use of the model (eval --llm measures it on every incident): the investigation, then the
     * summary of what it decided, in one go.
     */
    public Assessment review(Assessment rules, Function<Proposal, Verdict> policy, SummaryWriter templates) {
        Assessment decided = investigate(rules, policy, templates, "replay: every incident is investigated");
        return summarise(decided).map(Summarised::assessment).orElse(decided);
    }

    /**
     * The model's investigation of the rules' assessment; returns the assessment to act on, summarised
     * by the template ({@link #summarise} asks the model for the summary afterwards). {@code reason}:
     * why the model is asked, on each call's audit record.
     */
    Assessment investigate(Assessment rules, Function<Proposal, Verdict> policy, SummaryWriter templates, String reason) {
        EvidenceBundle bundle = rules.evidence();
        RunGuard guard = new RunGuard(settings);
        ToolGate gate = new ToolGate(guard, redactor);
        List<String> guardrails = new ArrayList<>();
        List<Redaction> redactions = new ArrayList<>();
        CallLedger.Run run = new CallLedger.Run(guard, "investigate").because(reason);
        try (run) {
            List<Proposal> candidates = rules.judgements().stream().map(Judgement::proposal).toList();
            ProposeMitigationTool propose = new ProposeMitigationTool(new ScopeGuard(bundle, candidates), policy);
            List<AgentTool> tools = new ArrayList<>(EvidenceTools.of(bundle, toolsets, prometheus,
                    runbooks == null ? Optional.empty() : runbooks.forDiagnosis(rules.diagnosis())));
            if (history != null) tools.addAll(history.forInvestigation());
            tools.add(propose.tool());

            OutboundText.Redacted brief = redactor.redact(BundleText.forInvestigation(rules, candidates), "evidence bundle");
            redactions.addAll(brief.redactions());
            Investigator investigator = AiServices.builder(Investigator.class).chatModel(model)
                    .chatMemoryProvider(ModelAgent::freshMemory)
                    .systemMessageProvider(id -> investigatePrompt)
                    .tools(gate.guarded(tools))
                    .maxSequentialToolsInvocations(settings.maxSteps() + 1)
                    .toolExecutionErrorHandler(ModelAgent::stopOrReport)
                    .build();
            run.begin("investigate");
            Investigation inv = call(run, () -> investigator.investigate(brief.text()));
            redactions.addAll(gate.redactions);
            guard.checkBudget();
            if (inv == null || inv.family() == null) {
                run.markMalformed("no family in the conclusion");
                throw new RunStopped("malformed: the model's conclusion names no family");
            }
            List<String> cited = new ArrayList<>();
            for (String id : inv.evidenceIds() == null ? List.<String>of() : inv.evidenceIds()) {
                if (bundle.byId(id).isPresent()) cited.add(id);
                else guardrails.add("citation: the investigation cited unknown evidence " + id + "; ignored");
            }
            for (ProposedMitigation m : inv.proposals() == null ? List.<ProposedMitigation>of() : inv.proposals()) {
                try {
                    propose.propose(m.kind(), m.target(), m.reason(), cited);
                } catch (IllegalArgumentException e) {
                    guardrails.add("proposal refused: " + e.getMessage());
                }
            }
            Family family = inv.family().family();
            Optional<String> disagreement = FamilyCrossCheck.disagreement(family, inv.cause(), rules.diagnosis());
            List<String> escalation = new ArrayList<>(rules.escalationReasons());
            Map<String, Judgement> merged = new LinkedHashMap<>();
            rules.judgements().forEach(j -> merged.put(j.proposal().name(), j));
            for (Judgement j : propose.judged()) {
                if (merged.putIfAbsent(j.proposal().name(), j) != null) continue;
                if ("agent-scope".equals(j.verdict().rule())) {
                    guardrails.add("scope: refused the model's " + j.proposal().name() + ": " + j.verdict().reasons().get(0));
                }
                if (j.verdict().decision() == Decision.DENY) {
                    escalation.add("policy refused the model's " + j.proposal().name() + ": " + String.join("; ", j.verdict().reasons()));
                } else if (j.verdict().decision() == Decision.APPROVE) {
                    escalation.add(j.proposal().name() + " waits for a person's approval");
                }
            }
            List<Judgement> judgements = new ArrayList<>(merged.values());
            if (disagreement.isPresent()) {
                guardrails.add("cross-check: " + disagreement.get());
                escalation.add(disagreement.get());
                judgements = judgements.stream().map(j -> j.verdict().decision() == Decision.DENY ? j
                        : new Judgement(j.proposal(), new Verdict(Decision.DENY, "model-rules-disagreement",
                                List.of(disagreement.get()), j.verdict().dryRun()))).toList();
            }
            Assessment draft = new Assessment(settings.model(), rules.subject(), rules.alerts(), bundle, rules.diagnosis(),
                    judgements, escalation, null, null);
            ModelRun mr = ModelRun.of(settings.model(), family.wireName(), inv.cause(), cited, disagreement.isEmpty(), false,
                    run.calls, redactions, guardrails, null).withTools(gate.tools);
            return new Assessment(settings.model(), rules.subject(), rules.alerts(), bundle, rules.diagnosis(), judgements,
                    escalation, templates.write(draft), mr);
        } catch (RunStopped e) {
            redactions.addAll(gate.redactions);
            guardrails.add("fallback: " + e.getMessage());
            LOG.warnf("model %s failed on %s, the rules planner takes over: %s", settings.model(), rules.subject().key(), e.getMessage());
            ModelRun mr = ModelRun.of(settings.model(), null, null, List.of(), null, false, run.calls, redactions, guardrails,
                    e.getMessage()).withTools(gate.tools);
            return new Assessment(rules.mode(), rules.subject(), rules.alerts(), bundle, rules.diagnosis(), rules.judgements(),
                    rules.escalationReasons(), rules.summary(), mr);
        }
    }

    /** Answers a chat question with the read-only history tools; the run is returned for auditing. */
    ChatRun chat(String question) {
        RunGuard guard = new RunGuard(settings);
        ToolGate gate = new ToolGate(guard, redactor);
        CallLedger.Run run = new CallLedger.Run(guard, "chat");
        List<Redaction> redactions = new ArrayList<>();
        try (run) {
            OutboundText.Redacted q = redactor.redact(question, "chat question");
            redactions.addAll(q.redactions());
            ChatService service = AiServices.builder(ChatService.class).chatModel(model)
                    .chatMemoryProvider(ModelAgent::freshMemory)
                    .systemMessageProvider(id -> chatPrompt)
                    .tools(gate.guarded(history == null ? List.of() : history.tools()))
                    .maxSequentialToolsInvocations(settings.maxSteps() + 1)
                    .toolExecutionErrorHandler(ModelAgent::stopOrReport)
                    .build();
            run.begin("chat");
            ChatAnswer a = call(run, () -> service.answer(q.text()));
            redactions.addAll(gate.redactions);
            if (a == null || a.text() == null || a.text().isBlank()) {
                run.markMalformed("empty answer");
                throw new RunStopped("malformed: the model gave no answer");
            }
            return new ChatRun(a, run.calls, redactions, null);
        } catch (RunStopped e) {
            redactions.addAll(gate.redactions);
            return new ChatRun(null, run.calls, redactions, e.getMessage());
        }
    }

    record ChatRun(ChatAnswer answer, List<ModelCall> calls, List<Redaction> redactions, String failure) {}

    /**
     * Runs one AI service call and turns every way it can fail into a RunStopped naming the failure:
     * the HTTP outcome the ledger saw (timeout, rate-limited, server-error), or malformed output when
     * the wire call succeeded but the content could not be read.
     */
    private static <T> T call(CallLedger.Run run, java.util.function.Supplier<T> body) {
        int before = run.calls.size();
        try {
            return body.get();
        } catch (RuntimeException e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof RunStopped rs) throw rs;
            }
            if (run.calls.size() > before && !"ok".equals(run.calls.get(run.calls.size() - 1).outcome())) {
                ModelCall last = run.calls.get(run.calls.size() - 1);
                throw new RunStopped("model call failed (" + last.outcome() + "): " + last.error());
            }
            if (run.calls.size() > before) {
                run.markMalformed(CallLedger.shortMessage(e));
                throw new RunStopped("malformed model output: " + CallLedger.shortMessage(e));
            }
            throw new RunStopped("model call failed (" + CallLedger.outcomeOf(e) + "): " + CallLedger.shortMessage(e));
        }
    }

    /**
     * One conversation per run. Without it quarkus-langchain4j hands every AI service the one default
     * memory of the application, so each request carried the last ten messages of other incidents:
     * their tenants' evidence in this incident's request, and thousands of tokens paid again.
     */
    private static ChatMemory freshMemory(Object memoryId) {
        return MessageWindowChatMemory.withMaxMessages(64);
    }

    private static ToolErrorHandlerResult stopOrReport(Throwable error, dev.langchain4j.service.tool.ToolErrorContext ctx) {
        for (Throwable c = error; c != null; c = c.getCause()) {
            if (c instanceof RunStopped rs) throw rs;
        }
        return ToolErrorHandlerResult.text("tool failed: " + error.getMessage());
    }
}
