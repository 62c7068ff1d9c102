package io.acceltriage.notify;

import io.acceltriage.action.RolloutCanary;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;

/**
 * A node-agent rollout the canary held is a person's: escalated (audited, told on every channel) with the
 * canary nodes' diagnostics in DCGM's own words and what to do next. A released one is only logged by the watch.
 */
@ApplicationScoped
class RolloutEscalations {

    private final Escalations escalations;

    RolloutEscalations(Escalations escalations) {
        this.escalations = escalations;
    }

    void held(@Observes RolloutCanary canary) {
        if (canary.released()) return;
        List<String> reasons = new ArrayList<>(canary.failures());
        reasons.add("the rollout of DaemonSet " + canary.daemonSet() + " stays held (updateStrategy OnDelete): roll it back to the"
                + " last good revision, or, once the failure is understood, restore its updateStrategy to let it go on");
        String summary = "The canary of DaemonSet " + canary.daemonSet() + " revision " + canary.revision()
                + (canary.image().isEmpty() ? "" : " (" + canary.image() + ")") + " failed on " + String.join(", ", canary.nodes())
                + "; the rest of the rollout is held.";
        escalations.tell(new Notice(null, "rollout.held", "DaemonSet " + canary.daemonSet(), "infrastructure", 1.0, summary,
                List.copyOf(reasons), "/audit"));
    }
}
