package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The events store of the view, bounded: at most {@code perObject} events about any one object (the
 * newest), none older than {@code maxAge}. A crash-looping pod writes events without end; the evidence
 * reads the recent ones about the subject, so the rest is not kept.
 */
final class BoundedEvents extends LeanStore<Event> {

    private final int perObject;
    private final Duration maxAge;
    private final Clock clock;
    /** Store keys of the events about one object, oldest first. */
    private final Map<String, Deque<String>> byObject = new HashMap<>();

    BoundedEvents(int perObject, Duration maxAge, Clock clock) {
        this.perObject = perObject;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    @Override
    public synchronized Event put(String key, Event event) {
        if (old(event)) {
            return remove(key);
        }
        Event before = super.put(key, event);
        Deque<String> keys = byObject.computeIfAbsent(about(event), k -> new ArrayDeque<>());
        keys.remove(key);
        keys.addLast(key);
        while (keys.size() > perObject) {
            super.remove(keys.removeFirst());
        }
        return before;
    }

    @Override
    public synchronized Event remove(String key) {
        Event gone = super.remove(key);
        if (gone != null) {
            Deque<String> keys = byObject.get(about(gone));
            if (keys != null) {
                keys.remove(key);
                if (keys.isEmpty()) byObject.remove(about(gone));
            }
        }
        return gone;
    }

    /** Events that aged out since they were stored are left out as they are read. */
    @Override
    public Stream<Event> values() {
        return super.values().filter(e -> !old(e));
    }

    private boolean old(Event e) {
        Instant when = when(e);
        return when != null && when.isBefore(clock.instant().minus(maxAge));
    }

    static Instant when(Event e) {
        String t = e.getLastTimestamp() != null ? e.getLastTimestamp()
                : e.getEventTime() != null && e.getEventTime().getTime() != null ? e.getEventTime().getTime()
                : e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp();
        try {
            return t == null ? null : java.time.OffsetDateTime.parse(t).toInstant();
        } catch (java.time.format.DateTimeParseException ex) {
            return null;
        }
    }

    private static String about(Event e) {
        var o = e.getInvolvedObject();
        return o == null ? "" : o.getKind() + "/" + o.getNamespace() + "/" + o.getName();
    }
}
