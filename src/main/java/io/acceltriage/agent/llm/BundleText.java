package io.acceltriage.agent.llm;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.diagnosis.Diagnosis;
import io.acceltriage.diagnosis.Disagreement;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.diagnosis.Finding;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.PodPlacement;
import io.acceltriage.evidence.Workload;
import io.acceltriage.policy.Proposal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the model is sent. Our own framing (subject, candidate actions, verdicts) stays outside the
 * envelope; everything read from the cluster is inside it, labelled untrusted. The rules' family is
 * deliberately not shown to the investigator, so its conclusion is an independent cross-check.
 *
 * <p>Tokens: a live bundle holds dozens of items, most of them routine device readings. The model
 * gets what the rules' findings rest on in full, and the rest by id, to fetch with the read-only
 * tools (list_evidence, get_evidence) when a question is open. When no finding cites anything (the
 * rules found no fault) there is nothing to put first, and the whole bundle is sent.
 */
final class BundleText {

    private BundleText() {}

    static String forInvestigation(Assessment rules, List<Proposal> candidates) {
        EvidenceBundle b = rules.evidence();
        StringBuilder sb = new StringBuilder();
        sb.append("Incident subject: ").append(rules.subject().key()).append('\n');
        sb.append("Node: ").append(b.node() == null ? "unknown" : b.node()).append(b.pool() == null ? "" : " (pool " + b.pool() + ")")
                .append(b.nodeCordoned() ? ", already cordoned" : "").append('\n');
        sb.append("Alerts: ").append(String.join(", ", rules.alerts())).append('\n');
        sb.append("Candidate actions (kind target):\n");
        if (candidates.isEmpty()) sb.append("- none\n");
        candidates.forEach(p -> sb.append("- ").append(p.kind().wireName()).append(' ').append(p.target()).append('\n'));
        Set<String> first = citedByFindings(rules.diagnosis());
        StringBuilder inside = new StringBuilder();
        if (!first.isEmpty()) {
            // Causes without their family or weight: which evidence matters, not what the rules concluded.
            inside.append("What the deterministic checks noticed (cause, evidence):\n");
            Set<String> seen = new LinkedHashSet<>();
            for (Finding f : rules.diagnosis().findings()) {
                String line = "- " + f.cause() + " (" + String.join(", ", f.evidenceIds()) + ")";
                if (seen.add(line)) inside.append(line).append('\n');
            }
        }
        for (Disagreement d : rules.diagnosis().disagreements()) {
            // Why the model was asked: two kinds of source contradict each other; the evidence must settle which is right.
            inside.append("Sources disagree: ").append(d.detail()).append(" (").append(String.join(", ", d.evidenceIds())).append(")\n");
        }
        inside.append(evidence(b, first, true));
        sb.append("Evidence bundle:\n").append(UntrustedData.wrap("evidence-bundle", inside.toString()));
        return sb.toString();
    }

    /** {@code alsoCited}: what the model's investigation cited, shown beside what the rules cite. */
    static String forSummary(Assessment a, Family family, String cause, Collection<String> alsoCited) {
        StringBuilder sb = new StringBuilder();
        sb.append("Incident subject: ").append(a.subject().key()).append('\n');
        sb.append("Family: ").append(family.wireName()).append(" (rules: ").append(a.diagnosis().family().wireName())
                .append(", confidence ").append(a.diagnosis().confidence()).append(")\n");
        sb.append("Cause: ").append(cause).append('\n');
        sb.append("Mitigations and policy verdicts:\n");
        if (a.judgements().isEmpty()) sb.append("- none\n");
        for (Judgement j : a.judgements()) {
            sb.append("- ").append(j.proposal().name()).append(" → ").append(j.verdict().decision().wireName())
                    .append(" (").append(String.join("; ", j.verdict().reasons())).append(")\n");
        }
        sb.append("Needs a person: ").append(a.escalationReasons().isEmpty() ? "no" : String.join("; ", a.escalationReasons())).append('\n');
        // The summary cites, it does not investigate: the evidence the conclusion rests on is enough.
        Set<String> cited = new LinkedHashSet<>(a.diagnosis().evidenceIds());
        cited.addAll(alsoCited);
        sb.append("Evidence:\n").append(UntrustedData.wrap("evidence-bundle", evidence(a.evidence(), cited, false)));
        return sb.toString();
    }

    private static Set<String> citedByFindings(Diagnosis d) {
        Set<String> ids = new LinkedHashSet<>(d.evidenceIds());
        d.findings().forEach(f -> ids.addAll(f.evidenceIds()));
        d.disagreements().forEach(x -> ids.addAll(x.evidenceIds()));
        return ids;
    }

    /**
     * The items in {@code first} in full (all of them when it is empty); the others by id and source
     * when the reader has the tools to fetch them ({@code fetchable}), else only how many.
     */
    private static String evidence(EvidenceBundle b, Set<String> first, boolean fetchable) {
        StringBuilder sb = new StringBuilder();
        Map<String, List<String>> rest = new LinkedHashMap<>();
        for (Evidence e : b.items()) {
            String source = e.source().name().toLowerCase();
            if (first.isEmpty() || first.contains(e.id())) {
                sb.append(e.id()).append(" [").append(source).append("] ").append(e.summary()).append('\n');
            } else {
                rest.computeIfAbsent(source, k -> new ArrayList<>()).add(e.id());
            }
        }
        if (!b.pods().isEmpty()) {
            sb.append("Pods on the node:\n");
            for (PodPlacement p : b.pods()) {
                sb.append("  ").append(p.ref()).append(" role=").append(p.role().name().toLowerCase())
                        .append(p.workloadRef() == null ? "" : " workload=" + p.workloadRef()).append('\n');
            }
        }
        if (!b.workloads().isEmpty()) {
            sb.append("Workloads:\n");
            for (Workload w : b.workloads()) {
                sb.append("  ").append(w.ref()).append(" kind=").append(w.kind()).append(w.gang() ? " gang" : "")
                        .append(w.serving() ? " serving" : "").append(w.replicas() == null ? "" : " replicas=" + w.replicas())
                        .append('\n');
            }
        }
        for (Gap g : b.gaps()) sb.append("Could not read: ").append(g.reason()).append('\n');
        if (!rest.isEmpty() && fetchable) {
            sb.append("Not shown, ask list_evidence (by source) or get_evidence (by id):");
            rest.forEach((source, ids) -> sb.append(' ').append(source).append(' ').append(String.join(",", ids)).append(';'));
            sb.setLength(sb.length() - 1);
            sb.append('\n');
        } else if (!rest.isEmpty()) {
            sb.append(rest.values().stream().mapToInt(List::size).sum()).append(" other items, not cited, not shown\n");
        }
        return sb.toString().strip();
    }
}
