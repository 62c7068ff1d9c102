package io.acceltriage.agent.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import io.acceltriage.agent.Judgement;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import io.acceltriage.policy.Proposal;
import io.acceltriage.policy.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The only tool with an effect, and the effect is a record: it turns the model's wish into a
 * proposal, refuses it when it is outside the incident's scope, asks policy for a verdict, remembers
 * both and tells the model the verdict. It never runs anything; the executor carries out allowed
 * verdicts later, and only when the model's family agrees with the rules'.
 */
final class ProposeMitigationTool {

    static final String NAME = "propose_mitigation";
    static final String BY = "model";

    private final ScopeGuard scope;
    private final Function<Proposal, Verdict> policy;
    private final Map<String, Judgement> judged = new LinkedHashMap<>();

    ProposeMitigationTool(ScopeGuard scope, Function<Proposal, Verdict> policy) {
        this.scope = scope;
        this.policy = policy;
    }

    AgentTool tool() {
        ToolSpecification spec = ToolSpecification.builder().name(NAME)
                .description("Policy's verdict (allow, approve, deny) on one candidate action; runs nothing.")
                .parameters(JsonObjectSchema.builder()
                        .addEnumProperty("kind", Arrays.stream(ActionKind.values()).map(ActionKind::wireName).toList())
                        .addStringProperty("target", "as in the candidate action")
                        .addStringProperty("reason", "why, citing ids")
                        .addProperty("evidence_ids", JsonArraySchema.builder().items(new JsonStringSchema()).build())
                        .required("kind", "target", "reason").build()).build();
        return EvidenceTools.tool(spec, args -> {
            List<String> ids = new ArrayList<>();
            if (args.get("evidence_ids") != null) args.get("evidence_ids").forEach(n -> ids.add(n.asText()));
            Judgement j = propose(AgentTool.text(args, "kind"), AgentTool.text(args, "target"), AgentTool.text(args, "reason"), ids);
            return j.proposal().name() + " → " + j.verdict().decision().wireName() + " (" + String.join("; ", j.verdict().reasons()) + ")";
        });
    }

    /** Also used for proposals listed only in the final conclusion. */
    Judgement propose(String kindName, String target, String reason, List<String> evidenceIds) {
        ActionKind kind;
        try {
            kind = ActionKind.parse(kindName);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        Proposal p = new Proposal(kind, target == null ? "" : target.strip(), reason == null ? "" : reason, List.copyOf(evidenceIds), BY);
        Judgement existing = judged.get(p.name());
        if (existing != null) return existing;
        Optional<String> refusal = scope.refusal(kind, p.target());
        Verdict v = refusal.map(r -> new Verdict(Decision.DENY, "agent-scope", List.of(r), false)).orElseGet(() -> policy.apply(p));
        Judgement j = new Judgement(p, v);
        judged.put(p.name(), j);
        return j;
    }

    List<Judgement> judged() {
        return new ArrayList<>(judged.values());
    }
}
