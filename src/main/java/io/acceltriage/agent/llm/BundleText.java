package io.acceltriage.agent.llm;

import io.acceltriage.agent.Assessment;
import io.acceltriage.agent.Judgement;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Gap;
import io.acceltriage.evidence.PodPlacement;
import io.acceltriage.evidence.Workload;
import io.acceltriage.policy.Proposal;
import java.util.List;

/**
 * What the model is sent. Our own framing (subject, candidate actions, verdicts) stays outside the
 * envelope; everything read from the cluster is inside it, labelled untrusted. The rules' family is
 * deliberately not shown to the investigator, so its conclusion is an independent cross-check.
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
        sb.append("Evidence bundle:\n").append(UntrustedData.wrap("evidence-bundle", evidence(b)));
        return sb.toString();
    }

    static String forSummary(Assessment a, Family family, String cause) {
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
        sb.append("Evidence:\n").append(UntrustedData.wrap("evidence-bundle", evidence(a.evidence())));
        return sb.toString();
    }

    private static String evidence(EvidenceBundle b) {
        StringBuilder sb = new StringBuilder();
        for (Evidence e : b.items()) {
            sb.append(e.id()).append(" [").append(e.source().name().toLowerCase()).append("] ").append(e.summary()).append('\n');
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
        return sb.toString().strip();
    }
}
