package io.acceltriage.agent;

import io.acceltriage.evidence.Evidence;
import io.acceltriage.evidence.EvidenceBundle;
import io.acceltriage.evidence.Facts;
import io.acceltriage.policy.ActionKind;
import io.acceltriage.policy.Decision;
import java.time.Instant;
import java.util.List;

/**
 * The training a restart of a gang throws away: the time since its last checkpoint times the GPUs it
 * holds, in GPU-hours, as of the triage. {@code atCheckpoint}: the restart waits for the gang's next
 * checkpoint, so it loses (nearly) none of it — the figure is what restarting now would have cost.
 * {@code lastCheckpoint} is null when only the age was read (a metric); {@code source} says where.
 */
public record WorkLost(String workload, String kind, Instant lastCheckpoint, long secondsSinceCheckpoint, int gpus,
        double gpuHours, String source, boolean atCheckpoint) {

    /** One line a person reads in the summary, the chat message and the escalation. */
    public String line() {
        String since = secondsSinceCheckpoint >= 3600 ? String.format("%.1f h", secondsSinceCheckpoint / 3600.0)
                : secondsSinceCheckpoint >= 60 ? (secondsSinceCheckpoint / 60) + " min" : secondsSinceCheckpoint + " s";
        return kind + " " + workload + ": last checkpoint " + since + " ago (" + source + ") × " + gpus + " GPUs = "
                + String.format("%.1f", gpuHours) + " GPU-hours" + (atCheckpoint
                ? " if restarted now; the restart waits for its next checkpoint"
                : " lost by the restart");
    }

    /** The work each gang of the incident that the plan restarts (or that reports a checkpoint) stands to lose. */
    static List<WorkLost> of(EvidenceBundle b, List<Judgement> judgements) {
        return b.of(Facts.GangCheckpoint.class).stream().map(Evidence::fact).map(Facts.GangCheckpoint.class::cast).map(c -> {
            String ref = c.namespace() + "/" + c.workload();
            boolean waits = judgements.stream().anyMatch(j -> j.proposal().kind() == ActionKind.RESTART_GROUP
                    && j.proposal().target().equals(ref) && j.proposal().atCheckpoint() && j.verdict().decision() != Decision.DENY);
            double hours = Math.round(c.secondsSince() / 3600.0 * c.gpus() * 10) / 10.0;
            return new WorkLost(ref, c.kind(), c.at(), c.secondsSince(), c.gpus(), hours, c.source(), waits);
        }).toList();
    }
}
