package io.acceltriage.agent.llm;

import io.acceltriage.store.Tx;
import io.acceltriage.audit.AuditLog;
import io.acceltriage.incident.Incident;
import io.acceltriage.incident.IncidentFilter;
import io.acceltriage.incident.IncidentStore;
import io.acceltriage.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers an engineer's chat question (Slack, Teams). With a model it looks things up with the
 * read-only history tools; without one, or when the model fails, it answers from the records: the
 * latest incidents. It never runs, approves or rejects anything. Every model call is audited.
 */
@ApplicationScoped
public class ChatAnswerer {

    private static final int MAX_QUESTION = 4_000;

    private final ModelMode mode;
    private final IncidentStore incidents;
    private final Database database;
    private final AuditLog audit;

    ChatAnswerer(ModelMode mode, IncidentStore incidents, Database database, AuditLog audit) {
        this.mode = mode;
        this.incidents = incidents;
        this.database = database;
        this.audit = audit;
    }

    public ChatAnswer answer(String question) {
        return answer(question, mode.agent().orElse(null));
    }

    /** {@code agent} null: rules mode. */
    ChatAnswer answer(String question, ModelAgent agent) {
        if (question == null || question.isBlank()) {
            throw new IllegalArgumentException("ask a question, e.g. \"what happened on gpu-h100-03?\"");
        }
        if (question.length() > MAX_QUESTION) {
            throw new IllegalArgumentException("the question has " + question.length() + " characters; at most " + MAX_QUESTION);
        }
        if (agent == null) return fromRecords("acceltriage runs in rules mode (no model configured), so it answers from its records.");
        ModelAgent.ChatRun run = agent.chat(question);
        List<String> guardrails = run.failure() == null ? List.of() : List.of("fallback: " + run.failure());
        database.transaction(tx -> {
            ModelAudit.append(tx, audit, null, run.calls(), run.redactions(), guardrails);
            return null;
        });
        return run.answer() != null ? run.answer()
                : fromRecords("The model could not answer (" + run.failure() + "), so this answer comes from the records.");
    }

    private ChatAnswer fromRecords(String preface) {
        List<Incident> latest = incidents.list(IncidentFilter.latest(5));
        List<String> ids = new ArrayList<>();
        StringBuilder sb = new StringBuilder(preface);
        if (latest.isEmpty()) {
            sb.append(" There are no incidents.");
        } else {
            sb.append(" The latest incidents:");
            for (Incident i : latest) {
                ids.add(i.id());
                sb.append("\n- ").append(i.id()).append(' ').append(i.subject().key()).append(": ")
                        .append(i.state().name().toLowerCase()).append(i.family() == null ? "" : ", " + i.family());
            }
        }
        return new ChatAnswer(sb.toString(), ids);
    }
}
