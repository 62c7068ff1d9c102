package io.acceltriage.reliability;

import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What an incident's fault did to the service, from the workloads' own series in Prometheus: for each
 * reading of the serving and training toolsets ({@code impact:} in {@code tools/}), its value over the
 * window before the fault's start and over the window after. {@code trainingSecondsLost} is the
 * progress a slowed job lost in the window after (its slowest rank's step time before and after);
 * {@code workAtRiskSeconds} the work since the job's last checkpoint at the fault (what a restart
 * loses). Every figure is a reading or derived from two; when there is none the status says why
 * ({@code reason}), never a number.
 */
public record ServiceImpact(Status status, String reason, Instant faultAt, Double windowSeconds, List<Reading> readings,
        Double trainingSecondsLost, Double workAtRiskSeconds) {

    public ServiceImpact {
        readings = readings == null ? List.of() : List.copyOf(readings);
    }

    public enum Status {
        /** Read from Prometheus: at least one reading. */
        MEASURED,
        /** Not read: Prometheus is not configured, has no such series, or the fault's start is unknown ({@code reason}). */
        NOT_MEASURED,
        /** The window after the fault has not passed yet. */
        PENDING;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One tool's value for one namespace: {@code before} over the window ending at the fault, {@code after}
     * over the window starting there (null when the tool is read at the fault only, or had no value then).
     */
    public record Reading(String namespace, String tool, String measure, Double before, Double after) {}

    public static ServiceImpact notMeasured(String reason, Instant faultAt) {
        return new ServiceImpact(Status.NOT_MEASURED, reason, faultAt, null, List.of(), null, null);
    }

    public static ServiceImpact pending(Instant faultAt, Duration window) {
        return new ServiceImpact(Status.PENDING, "measured " + human(window.toSeconds()) + " after the fault, at " + faultAt.plus(window),
                faultAt, (double) window.toSeconds(), List.of(), null, null);
    }

    public boolean measured() {
        return status == Status.MEASURED;
    }

    /** One line for people (chat, the incident page's heading, the escalation): the figures, or why there are none. */
    @com.fasterxml.jackson.annotation.JsonProperty("summary")
    public String summary() {
        if (!measured()) return "service impact not measured: " + reason;
        List<String> parts = new ArrayList<>();
        for (Reading r : readings) {
            String what = switch (r.measure()) {
                case "latency-p50" -> "latency p50";
                case "latency-p99" -> "latency p99";
                case "latency-mean" -> "mean latency";
                case "failed-requests" -> "requests failed";
                case "step-time" -> "step time";
                case "checkpoint-age" -> "work since the last checkpoint at the fault";
                default -> r.measure();
            };
            String unit = "failed-requests".equals(r.measure()) ? "" : " s";
            parts.add(r.namespace() + " " + what + " " + (r.after() == null && "checkpoint-age".equals(r.measure())
                    ? human(r.before())
                    : figure(r.before()) + unit + " → " + figure(r.after()) + unit));
        }
        String line = String.join("; ", parts) + " (" + human(windowSeconds) + " before vs after the fault)";
        if (trainingSecondsLost != null) line += "; training time lost ≈ " + human(trainingSecondsLost);
        return line;
    }

    private static String figure(Double v) {
        if (v == null) return "none";
        if (v == Math.rint(v) && Math.abs(v) < 1e9) return String.valueOf(v.longValue());
        return Math.abs(v) >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    static String human(Double seconds) {
        if (seconds == null) return "?";
        long s = Math.round(seconds);
        if (s < 60) return s + " s";
        if (s < 3600) return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }

    static String human(long seconds) {
        return human((double) seconds);
    }
}
