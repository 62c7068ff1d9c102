package io.acceltriage.agent;

import java.util.List;
import java.util.Locale;

/**
 * What a read-only triage found, as the MCP tool {@code investigate} and the command
 * {@code investigate} both report it: the diagnosis, the evidence it cites, the sources that could
 * not be read, and what policy would do with each proposal. Nothing in it has been carried out.
 */
public record Investigation(String subject, String family, double confidence, String cause, List<String> evidence,
        List<String> gaps, List<String> policyWouldDo, List<String> needsAPerson, String summary) {

    public static Investigation of(Assessment a) {
        return new Investigation(a.subject().key(), a.diagnosis().family().wireName(), a.diagnosis().confidence(),
                a.diagnosis().cause(),
                a.diagnosis().evidenceIds().stream().map(id -> a.evidence().byId(id)
                        .map(e -> id + " [" + e.source().name().toLowerCase(Locale.ROOT) + "] " + e.summary()).orElse(id)).toList(),
                a.evidence().gaps().stream().map(g -> g.source().name().toLowerCase(Locale.ROOT) + ": " + g.reason()).toList(),
                a.judgements().stream().map(Investigation::verdict).toList(),
                List.copyOf(a.escalationReasons()), a.summary());
    }

    private static String verdict(Judgement j) {
        return j.proposal().name() + " -> " + j.verdict().decision().wireName() + " by " + j.verdict().rule()
                + (j.verdict().reasons().isEmpty() ? "" : ": " + String.join("; ", j.verdict().reasons()));
    }
}
