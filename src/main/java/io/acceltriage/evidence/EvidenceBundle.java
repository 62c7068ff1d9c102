package io.acceltriage.evidence;

import io.acceltriage.incident.Subject;
import java.util.List;
import java.util.Optional;

/**
 * Everything gathered for one triage, as of {@code at} (the alerts' time): cited evidence, the subject's node and pool, the pods there and
 * their workloads, what could not be read, and a line per source consulted.
 */
public record EvidenceBundle(Subject subject, java.time.Instant at, String node, String pool, boolean nodeCordoned, List<Evidence> items,
        List<PodPlacement> pods, List<Workload> workloads, List<Gap> gaps, List<String> consulted) {

    public Optional<Evidence> byId(String id) {
        return items.stream().filter(e -> e.id().equals(id)).findFirst();
    }

    public <F extends Fact> List<Evidence> of(Class<F> type) {
        return items.stream().filter(e -> type.isInstance(e.fact())).toList();
    }

    public Optional<PodPlacement> pod(String namespace, String name) {
        return pods.stream().filter(p -> p.namespace().equals(namespace) && p.name().equals(name)).findFirst();
    }

    public Optional<Workload> workload(String ref) {
        return workloads.stream().filter(w -> w.ref().equals(ref)).findFirst();
    }
}
