package io.acceltriage.diagnosis;

import java.util.List;

/**
 * One reason to suspect a family, resting on evidence. {@code group} names the kind of reason (a
 * tool, a signature, a condition): findings of one group are one reason however often they repeat.
 * {@code symptom}: it shows that something broke, not what (a crash loop, a log line);
 * {@code degradation}: the device works but is wearing out; {@code contained}: the fault is the
 * application's to restart and the node may stay; {@code restartHelps}: a restart should clear it.
 */
public record Finding(Family family, double weight, String cause, List<String> evidenceIds, String group,
        boolean symptom, boolean degradation, boolean contained, boolean restartHelps) {

    static Finding of(Family family, double weight, String cause, String evidenceId, String group) {
        return new Finding(family, weight, cause, List.of(evidenceId), group, false, false, false, false);
    }

    Finding asSymptom() {
        return new Finding(family, weight, cause, evidenceIds, group, true, degradation, contained, restartHelps);
    }

    Finding degrading() {
        return new Finding(family, weight, cause, evidenceIds, group, symptom, true, contained, restartHelps);
    }

    Finding restartable() {
        return new Finding(family, weight, cause, evidenceIds, group, symptom, degradation, contained, true);
    }

    Finding containedToApp() {
        return new Finding(family, weight, cause, evidenceIds, group, symptom, degradation, true, true);
    }
}
