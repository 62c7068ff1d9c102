package io.acceltriage.agent.llm;

import io.acceltriage.agent.Redaction;
import io.acceltriage.evidence.Redactor;
import java.util.List;

/**
 * Guardrail: every text sent to a model goes through the one {@link Redactor} first (logs and events
 * routinely carry secrets, and a hosted model is outside the trust boundary); each redaction is
 * reported with where it was found, so it is audited.
 */
final class OutboundText {

    record Redacted(String text, List<Redaction> redactions) {}

    Redacted redact(String text, String where) {
        Redactor.Result r = Redactor.redact(text);
        return new Redacted(r.text(), r.found().entrySet().stream().map(e -> new Redaction(where, e.getKey(), e.getValue())).toList());
    }
}
