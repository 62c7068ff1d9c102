package io.acceltriage.incident;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Open incidents kept in memory, for scenario replay and anything else that correlates without the
 * store. Files exactly as the live path does: the decisions are {@link Correlator}'s.
 */
public final class MemoryIndex implements Correlator.Index {

    /** An incident as replay sees it: its subject, its correlation keys and the alerts filed under it. */
    public record Group(String id, Subject subject, Set<String> keys, List<Alert> alerts) {
        Group withSubject(Subject s) {
            return new Group(id, s, keys, alerts);
        }
    }

    private final List<Group> groups = new ArrayList<>();

    /** Files alerts that arrive together, as the live worker files one batch of its inbox. */
    public void addAll(Correlator correlator, List<Alert> alerts, java.util.function.Function<Alert, java.time.Instant> at) {
        alerts.forEach(a -> correlator.expect(a, at.apply(a)));
        alerts.forEach(a -> add(correlator, a, at.apply(a)));
    }

    /** Files one alert (announced with {@link Correlator#expect}) and returns its group. */
    public Group add(Correlator correlator, Alert alert, java.time.Instant at) {
        String id = Correlator.file(alert, correlator.about(alert, at), this).incidentId();
        Group g = group(id);
        g.alerts().add(alert);
        return g;
    }

    public List<Group> groups() {
        return List.copyOf(groups);
    }

    @Override
    public Optional<String> find(Collection<String> keys) {
        for (int i = groups.size() - 1; i >= 0; i--) {
            if (keys.stream().anyMatch(groups.get(i).keys()::contains)) return Optional.of(groups.get(i).id());
        }
        return Optional.empty();
    }

    @Override
    public Optional<String> holding(String fingerprint) {
        for (int i = groups.size() - 1; i >= 0; i--) {
            if (groups.get(i).alerts().stream().anyMatch(a -> a.fingerprint().equals(fingerprint))) {
                return Optional.of(groups.get(i).id());
            }
        }
        return Optional.empty();
    }

    @Override
    public Opened open(Subject subject, String node, Collection<String> keys) {
        Group g = new Group("group-" + (groups.size() + 1), subject, new LinkedHashSet<>(keys), new ArrayList<>());
        groups.add(g);
        return new Opened(g.id(), true);
    }

    @Override
    public void addKeys(String incidentId, Collection<String> keys) {
        group(incidentId).keys().addAll(keys);
    }

    @Override
    public Subject subjectOf(String incidentId) {
        return group(incidentId).subject();
    }

    @Override
    public void resubject(String incidentId, Subject node) {
        Group g = group(incidentId);
        groups.set(groups.indexOf(g), g.withSubject(node));
        g.keys().add(node.key());
    }

    private Group group(String id) {
        return groups.stream().filter(g -> g.id().equals(id)).findFirst().orElseThrow();
    }
}
