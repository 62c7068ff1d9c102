package io.acceltriage.reliability;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * An incident's GPU-hours lost, each kind counted once and shown apart: {@code fenced}, GPUs kept from work
 * by a cordon or drain that took effect, for as long as it held; {@code workLost}, the training since the last
 * checkpoint a restart that took effect threw away (the assessment's work lost, GPU-hours, only for a restart
 * that did not wait for the gang's next checkpoint); {@code slowed}, the training time the fault cost a job that
 * kept running slower ({@link ServiceImpact#trainingSecondsLost()} × the job's GPUs). A job that was restarted
 * lost its work once, as work lost: slowed counts only the time a reading measured after the fault, which a
 * restart does not repeat. {@code trainingGpus}: the GPUs of the incident's one training gang (0 when it has
 * none or several, so slowed is not counted), what a measured slowdown is multiplied by.
 */
public record GpuHoursLost(double fenced, double workLost, double slowed, @JsonIgnore int trainingGpus) {

    public static final GpuHoursLost NONE = new GpuHoursLost(0, 0, 0, 0);

    @JsonProperty("total")
    public double total() {
        return round(fenced + workLost + slowed);
    }

    /** The same loss once the service impact is known: slowed from its training time lost. */
    GpuHoursLost withImpact(ServiceImpact impact) {
        double s = impact == null || impact.trainingSecondsLost() == null || trainingGpus <= 0 ? 0
                : round(impact.trainingSecondsLost() * trainingGpus / 3600.0);
        return new GpuHoursLost(fenced, workLost, s, trainingGpus);
    }

    /** This loss and another's, kind by kind. */
    public GpuHoursLost plus(GpuHoursLost o) {
        return new GpuHoursLost(round(fenced + o.fenced), round(workLost + o.workLost), round(slowed + o.slowed), 0);
    }

    static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
