package io.acceltriage.agent.llm;

import io.acceltriage.audit.AuditLog;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers an engineer's free-form chat question (Slack, Teams) with the model: from the stored record
 * and audit trail of the incident it is about, given up front so one round trip does, and the
 * read-only history tools for the rest. It only answers: it never runs, approves or rejects anything.
 * Every model call is audited (on the incident's trail when there is one). With no model, or when the
 * model fails or cites what the records do not hold, it says why and the chat answers by the rules.
 */
@ApplicationScoped
public class ChatAnswerer {

    private static final int MAX_QUESTION = 4_000;
    private static final Pattern CITED_IN_TEXT = Pattern.compile("\\b(inc-[a-z0-9]+|E\\d+)\\b");

    /** The model's answer with the model's name, or (answer null) why the model gave none. */
    public record Reply(ChatAnswer answer, String model, String unavailable) {}

    private final ModelMode mode;
    private final IncidentStore incidents;
    private final HistoryTools history;
    private final Database database;
    private final AuditLog audit;

    ChatAnswerer(ModelMode mode, IncidentStore incidents, HistoryTools history, Database database, AuditLog audit) {
        this.mode = mode;
        this.incidents = incidents;
        this.history = history;
        this.database = database;
        this.audit = audit;
    }

    /** {@code incidentId}: the incident the question is about, or null. */
    public Reply answer(String question, String incidentId) {
        return answer(question, incidentId, mode.agent().orElse(null));
    }

    /** {@code agent} null: rules mode. */
    Reply answer(String question, String incidentId, ModelAgent agent) {
        if (question == null || question.isBlank()) {
            throw new IllegalArgumentException("ask a question, e.g. \"what happened on gpu-h100-03?\"");
        }
        if (question.length() > MAX_QUESTION) {
            throw new IllegalArgumentException("the question has " + question.length() + " characters; at most " + MAX_QUESTION);
        }
        if (agent == null) return new Reply(null, null, "No model is configured (rules mode)");
        String about = incidentId == null ? null : incidents.find(incidentId).map(i -> i.id()).orElse(null);
        ModelAgent.ChatRun run = agent.chat(about == null ? question : withRecord(question, about));
        String problem = run.failure() != null ? run.failure() : citationProblem(run.answer(), about).orElse(null);
        List<String> guardrails = problem == null ? List.of() : List.of("fallback: chat answered by the rules: " + problem);
        database.transaction(tx -> {
            ModelAudit.append(tx, audit, about, run.calls(), run.redactions(), guardrails);
            return null;
        });
        return problem == null ? new Reply(run.answer(), agent.model(), null)
                : new Reply(null, agent.model(), "The model could not answer (" + problem + ")");
    }

    /** The incident's record and audit trail ahead of the question, labelled as data: tenant text is in them. */
    private String withRecord(String question, String id) {
        return "The question is about incident " + id + ". Its stored record and audit trail:\n"
                + UntrustedData.wrap("incident:" + id, history.incident(id)) + "\n"
                + UntrustedData.wrap("audit:" + id, history.auditTrail(id)) + "\n\nQuestion: " + question;
    }

    /**
     * Guardrail: an answer about an incident cites at least one id, and every incident id it cites
     * exists; evidence ids (E7) must be in the incident's stored assessment.
     */
    private Optional<String> citationProblem(ChatAnswer a, String about) {
        Set<String> cited = new LinkedHashSet<>(a.evidenceIds() == null ? List.of() : a.evidenceIds());
        Matcher m = CITED_IN_TEXT.matcher(a.text());
        while (m.find()) cited.add(m.group(1));
        if (about != null && cited.isEmpty()) return Optional.of("the answer cites no incident or evidence");
        String assessment = about == null ? "" : incidents.find(about).map(i -> i.assessmentJson()).orElse("");
        List<String> unknown = new ArrayList<>();
        for (String id : cited) {
            boolean known = id.startsWith("inc-") ? incidents.find(id).isPresent()
                    : assessment != null && assessment.contains("\"" + id + "\"");
            if (!known) unknown.add(id);
        }
        return unknown.isEmpty() ? Optional.empty()
                : Optional.of("the answer cites what the records do not hold: " + String.join(", ", unknown));
    }
}
