package io.acceltriage.agent.llm;

import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.PodPlacement;
import io.acceltriage.evidence.Workload;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Proposal;
import java.util.List;
import java.util.Optional;

/**
 * Guardrail: text in a log can never widen what the agent may do. A model proposal is admitted only
 * when its kind and target are among the rules planner's candidates or within the incident's own
 * topology as the bundle recorded it (its node; the pods and workloads it gathered). Anything else —
 * another node, a wildcard, every node of a pool — is refused before policy sees it. A node action
 * (cordon, drain, node-agent restart) is admitted only on a node the rules themselves fence: they do so
 * only on a platform source, and a model reading tenant text must not fence shared hardware either.
 */
final class ScopeGuard {

    private final EvidenceBundle bundle;
    private final List<Proposal> candidates;

    ScopeGuard(EvidenceBundle bundle, List<Proposal> candidates) {
        this.bundle = bundle;
        this.candidates = candidates;
    }

    /** Empty when admitted, else why not. */
    Optional<String> refusal(ActionKind kind, String target) {
        if (target == null || target.isBlank()) return Optional.of("no target named");
        if (candidates.stream().anyMatch(p -> p.kind() == kind && p.target().equals(target))) return Optional.empty();
        if (kind.targetsNode()) {
            if (!target.equals(bundle.node()) && candidates.stream().noneMatch(p -> p.kind().targetsNode() && p.target().equals(target))) {
                return Optional.of(bundle.node() == null
                        ? "a fleet incident fences no node by the model's word (" + target + "); the agent acts on the incident's own node only"
                        : target + " is not this incident's node (" + bundle.node() + "); the agent acts on the incident's own node only");
            }
            // Fencing shared hardware needs a platform source: the rules fence a node only on one, and a
            // model reading tenant text (logs, a workload's events) may not fence where they did not.
            return candidates.stream().anyMatch(p -> p.kind().targetsNode() && p.target().equals(target)) ? Optional.empty()
                    : Optional.of("the rules found no platform source (exporter, device plugin, node status, node agents) calling for"
                            + " fencing " + target + "; tenant text alone cannot fence shared hardware");
        }
        boolean known = switch (kind) {
            case RESTART_POD -> bundle.pods().stream().filter(p -> !p.role().nodeAgent()).map(PodPlacement::ref)
                    .anyMatch(target::equals);
            case RESTART_GROUP -> bundle.workloads().stream().filter(Workload::gang).map(Workload::ref).anyMatch(target::equals);
            case SHIFT_REPLICAS -> bundle.workloads().stream().filter(Workload::serving).map(Workload::ref).anyMatch(target::equals);
            default -> false;
        };
        return known ? Optional.empty()
                : Optional.of(target + " is not a " + kind.wireName() + " target in this incident's evidence");
    }
}
