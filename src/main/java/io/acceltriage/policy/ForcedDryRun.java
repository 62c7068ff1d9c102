package io.acceltriage.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The one place an incident is forced into dry run whatever the policy says: an incident any of whose
 * alerts carries {@link #DRILL_LABEL} was opened by a shadow drill, and for its whole life every action
 * it proposes is recorded as what would have been done and nothing changes — an action a person
 * approves later runs dry too, because the dry run is stored with the action. Deciding on the alert's
 * label (which only the alert webhook's authenticated sender or the drill itself sets) keeps it a
 * property of the incident, not of one triage: a re-triage reads the same alerts and decides the same.
 */
public final class ForcedDryRun {

    /** The label a shadow drill's alert carries; its value is the drill's name. */
    public static final String DRILL_LABEL = "acceltriage_drill";

    /** Why the incident runs dry, and whether an alert that is not the drill's joined it (a real fault on the drill's subject). */
    public record Forced(String reason, List<String> drills, boolean realAlertJoined) {}

    private ForcedDryRun() {}

    /** Forced when any of the incident's alerts (their label sets) is a shadow drill's; empty otherwise. */
    public static Optional<Forced> of(Collection<Map<String, String>> alertLabels) {
        TreeSet<String> drills = new TreeSet<>();
        boolean real = false;
        for (Map<String, String> labels : alertLabels) {
            String drill = labels.get(DRILL_LABEL);
            if (drill == null || drill.isBlank()) real = true;
            else drills.add(drill);
        }
        if (drills.isEmpty()) return Optional.empty();
        return Optional.of(new Forced("shadow drill " + String.join(", ", drills)
                + ": the incident runs in dry run for its whole life; every action is recorded as what would have been done,"
                + " nothing changes", List.copyOf(drills), real));
    }

    /** The verdict as the forced dry run leaves it: a refusal stays one; an allowed or approved action runs dry, saying why. */
    public static Verdict apply(Verdict v, Forced forced) {
        if (v.decision() == Decision.DENY) return v;
        List<String> reasons = new ArrayList<>(v.reasons());
        reasons.add(forced.reason());
        return new Verdict(v.decision(), v.rule(), List.copyOf(reasons), true);
    }
}
