package io.acceltriage.incident;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Tells an alert storm from a run of separate faults: when more than {@code threshold} distinct
 * subjects fire the same alertname within {@code window}, that alertname is storming, and its alerts
 * belong to one fleet incident rather than one incident per node. A bad driver or device-plugin
 * rollout looks exactly like this: the same alert, on many nodes, within a minute.
 *
 * <p>Memory only, for replays; the live service reads the same window from the store ({@link StoredStorms}).
 */
public final class StormWindow implements Correlator.Storms {

    public static final int DEFAULT_THRESHOLD = 10;
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

    private record Sighting(Instant at, String subjectKey) {}

    private final int threshold;
    private final Duration window;
    private final Map<String, Deque<Sighting>> byAlertname = new HashMap<>();

    public StormWindow(int threshold, Duration window) {
        if (threshold < 1) {
            throw new IllegalArgumentException("acceltriage.correlation.storm-threshold must be at least 1, got " + threshold);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("acceltriage.correlation.storm-window must be positive, got " + window);
        }
        this.threshold = threshold;
        this.window = window;
    }

    public static StormWindow defaults() {
        return new StormWindow(DEFAULT_THRESHOLD, DEFAULT_WINDOW);
    }

    @Override
    public synchronized void record(String alertname, String subjectKey, Instant at) {
        byAlertname.computeIfAbsent(alertname, k -> new ArrayDeque<>()).addLast(new Sighting(at, subjectKey));
    }

    /**
     * Whether {@code alertname} is storming at {@code at}: more than the threshold of distinct subjects
     * fired it within the window around that time.
     */
    @Override
    public synchronized boolean storming(String alertname, Instant at) {
        Deque<Sighting> seen = byAlertname.get(alertname);
        if (seen == null) return false;
        // Forget what no later alert can count any more (alerts arrive roughly in time order).
        while (!seen.isEmpty() && seen.peekFirst().at().isBefore(at.minus(window).minus(window))) {
            seen.removeFirst();
        }
        Set<String> subjects = new HashSet<>();
        for (Sighting s : seen) {
            if (!s.at().isBefore(at.minus(window)) && !s.at().isAfter(at.plus(window))) subjects.add(s.subjectKey());
        }
        return subjects.size() > threshold;
    }

    public int threshold() {
        return threshold;
    }

    public Duration window() {
        return window;
    }
}
