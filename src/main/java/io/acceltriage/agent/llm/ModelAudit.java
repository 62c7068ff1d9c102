package io.acceltriage.agent.llm;

import io.acceltriage.store.Tx;
import io.acceltriage.agent.ModelCall;
import io.acceltriage.agent.ModelRun;
import io.acceltriage.agent.Redaction;
import io.acceltriage.audit.Actors;
import io.acceltriage.audit.AuditKind;
import io.acceltriage.audit.AuditLog;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes what the model did into the audit chain: one model.call record per round trip (model,
 * purpose, why, tokens in and out, latency, outcome), one model.tool record per tool it called
 * (arguments, outcome, what it read back) and one guardrail record per redaction, per guardrail that
 * fired and for a fallback to the rules.
 */
public final class ModelAudit {

    private ModelAudit() {}

    public static void append(Tx tx, AuditLog audit, String incidentId, ModelRun run) {
        append(tx, audit, incidentId, run.calls(), run.redactions(), run.guardrails());
        for (io.acceltriage.agent.ToolCall t : run.tools()) {
            audit.append(tx, incidentId, AuditKind.MODEL_TOOL, Actors.AGENT, t);
        }
        if (run.agreesWithRules() != null) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("guard", "cross-check");
            p.put("modelFamily", run.family());
            p.put("agrees", run.agreesWithRules());
            p.put("tokensIn", run.tokensIn());
            p.put("tokensOut", run.tokensOut());
            p.put("roundTrips", run.roundTrips());
            audit.append(tx, incidentId, AuditKind.GUARDRAIL, Actors.AGENT, p);
        }
    }

    static void append(Tx tx, AuditLog audit, String incidentId, List<ModelCall> calls, List<Redaction> redactions,
            List<String> guardrails) {
        for (ModelCall call : calls) {
            audit.append(tx, incidentId, AuditKind.MODEL_CALL, Actors.AGENT, call);
        }
        for (Redaction r : redactions) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("guard", "redaction");
            p.put("where", r.where());
            p.put("kind", r.kind());
            p.put("count", r.count());
            audit.append(tx, incidentId, AuditKind.GUARDRAIL, Actors.AGENT, p);
        }
        for (String g : guardrails) {
            int colon = g.indexOf(':');
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("guard", colon > 0 ? g.substring(0, colon) : "guardrail");
            p.put("detail", colon > 0 ? g.substring(colon + 1).strip() : g);
            audit.append(tx, incidentId, AuditKind.GUARDRAIL, Actors.AGENT, p);
        }
    }
}
