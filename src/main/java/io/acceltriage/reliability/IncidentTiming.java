package io.acceltriage.reliability;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.time.Instant;

/**
 * One incident's clock, from what it stored: when the fault began (the earliest alert's startsAt),
 * when acceltriage received it, decided (first verdict, or diagnosis when nothing was proposed),
 * mitigated (first action that finished), verified, returned to service (a return-node that took effect),
 * and when the incident was resolved; the GPUs its
 * actions fenced; the GPU-hours lost, in all ({@code gpuHoursLost}) and by kind ({@link GpuHoursLost}: fenced, work lost
 * by a restart, slowed); what the fault did to the service ({@link ServiceImpact}). A stage that did not happen is null.
 */
public record IncidentTiming(String incidentId, String family, String pool, String node, Instant faultAt, Instant receivedAt,
        Instant decidedAt, Instant mitigatedAt, Instant verifiedAt, Instant returnedAt, Instant resolvedAt, int gpusFenced, double gpuHoursLost,
        ServiceImpact impact, GpuHoursLost lost) {

    public IncidentTiming {
        // Without a breakdown, the loss given is fencing alone; with one, the total is the breakdown's (never counted twice).
        lost = lost == null ? new GpuHoursLost(gpuHoursLost, 0, 0, 0) : lost;
        gpuHoursLost = lost.total();
    }

    public IncidentTiming(String incidentId, String family, String pool, String node, Instant faultAt, Instant receivedAt, Instant decidedAt,
            Instant mitigatedAt, Instant verifiedAt, Instant returnedAt, Instant resolvedAt, int gpusFenced, double gpuHoursLost,
            ServiceImpact impact) {
        this(incidentId, family, pool, node, faultAt, receivedAt, decidedAt, mitigatedAt, verifiedAt, returnedAt, resolvedAt, gpusFenced,
                gpuHoursLost, impact, null);
    }

    /** A timing without its service impact (not read, or not asked for). */
    public IncidentTiming(String incidentId, String family, String pool, String node, Instant faultAt, Instant receivedAt, Instant decidedAt,
            Instant mitigatedAt, Instant verifiedAt, Instant returnedAt, Instant resolvedAt, int gpusFenced, double gpuHoursLost) {
        this(incidentId, family, pool, node, faultAt, receivedAt, decidedAt, mitigatedAt, verifiedAt, returnedAt, resolvedAt, gpusFenced,
                gpuHoursLost, null);
    }

    /** The same timing with its impact (the stored one, or what the reader says when none is stored) and the slowdown it measured. */
    IncidentTiming withImpact(ServiceImpact i) {
        GpuHoursLost l = lost.withImpact(i);
        return new IncidentTiming(incidentId, family, pool, node, faultAt, receivedAt, decidedAt, mitigatedAt, verifiedAt, returnedAt,
                resolvedAt, gpusFenced, l.total(), i, l);
    }

    public Duration toDetect() {
        return between(faultAt, receivedAt);
    }

    public Duration toDecide() {
        return between(receivedAt, decidedAt);
    }

    public Duration toMitigate() {
        return between(receivedAt, mitigatedAt);
    }

    public Duration toVerify() {
        return between(receivedAt, verifiedAt);
    }

    public Duration toReturn() {
        return between(receivedAt, returnedAt);
    }

    public Duration toResolve() {
        return between(receivedAt, resolvedAt);
    }

    @JsonProperty("secondsToDetect")
    Double secondsToDetect() {
        return seconds(toDetect());
    }

    @JsonProperty("secondsToDecide")
    Double secondsToDecide() {
        return seconds(toDecide());
    }

    @JsonProperty("secondsToMitigate")
    Double secondsToMitigate() {
        return seconds(toMitigate());
    }

    @JsonProperty("secondsToVerify")
    Double secondsToVerify() {
        return seconds(toVerify());
    }

    @JsonProperty("secondsToReturn")
    Double secondsToReturn() {
        return seconds(toReturn());
    }

    @JsonProperty("secondsToResolve")
    Double secondsToResolve() {
        return seconds(toResolve());
    }

    private static Double seconds(Duration d) {
        return d == null ? null : d.toMillis() / 1000.0;
    }

    /** Null when either end is unknown; never negative (clocks of the alert's source and ours differ). */
    private static Duration between(Instant from, Instant to) {
        if (from == null || to == null) return null;
        Duration d = Duration.between(from, to);
        return d.isNegative() ? Duration.ZERO : d;
    }
}
