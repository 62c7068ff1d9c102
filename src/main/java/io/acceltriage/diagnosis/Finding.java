package io.acceltriage.diagnosis;

import java.util.List;

/**
 * One reason to suspect a family, resting on evidence. {@code degradation}: the device works but is
 * wearing out; {@code contained}: the fault is the application's to restart, the node may stay.
 * {@code restartHelps}: a restart of the workload is expected to clear it.
 */
public record Finding(Family family, double weight, String cause, List<String> evidenceIds, boolean degradation,
        boolean contained, boolean restartHelps) {

    static Finding of(Family family, double weight, String cause, String evidenceId) {
        return new Finding(family, weight, cause, List.of(evidenceId), false, false, false);
    }

    Finding degrading() {
        return new Finding(family, weight, cause, evidenceIds, true, contained, restartHelps);
    }

    Finding restartable() {
        return new Finding(family, weight, cause, evidenceIds, degradation, contained, true);
    }

    Finding containedToApp() {
        return new Finding(family, weight, cause, evidenceIds, degradation, true, true);
    }
}
