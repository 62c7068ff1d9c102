package io.acceltriage.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the view keeps of each object, and how many events. */
class ViewBoundsTest {

    static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    static Event event(String name, String pod, Instant at) {
        return new EventBuilder().withNewMetadata().withNamespace("ml").withName(name).endMetadata()
                .withNewInvolvedObject().withKind("Pod").withNamespace("ml").withName(pod).endInvolvedObject()
                .withReason("BackOff").withLastTimestamp(at.toString()).build();
    }

    @Test
    void keepsTheNewestEventsOfEachObjectUpToTheCap() {
        BoundedEvents store = new BoundedEvents(3, Duration.ofHours(1), Clock.fixed(NOW, ZoneOffset.UTC));
        for (int i = 0; i < 10; i++) {
            Event e = event("loop-" + i, "crashing", NOW.minusSeconds(100 - i));
            store.put(store.getKey(e), e);
        }
        Event other = event("other-0", "quiet", NOW);
        store.put(store.getKey(other), other);
        List<String> kept = store.values().map(e -> e.getMetadata().getName()).sorted().toList();
        assertEquals(List.of("loop-7", "loop-8", "loop-9", "other-0"), kept);
        assertEquals(4, store.size());
    }

    @Test
    void dropsEventsOlderThanTheAge() {
        BoundedEvents store = new BoundedEvents(20, Duration.ofHours(1), Clock.fixed(NOW, ZoneOffset.UTC));
        Event old = event("old", "p", NOW.minus(Duration.ofHours(2)));
        Event recent = event("recent", "p", NOW.minusSeconds(60));
        store.put(store.getKey(old), old);
        store.put(store.getKey(recent), recent);
        assertEquals(List.of("recent"), store.values().map(e -> e.getMetadata().getName()).toList());
        assertNull(store.get(store.getKey(old)), "an event already too old is not stored at all");
    }

    @Test
    void anEventUpdatedInPlaceCountsOnce() {
        BoundedEvents store = new BoundedEvents(2, Duration.ofHours(1), Clock.fixed(NOW, ZoneOffset.UTC));
        for (int i = 0; i < 5; i++) {
            Event e = event("same", "p", NOW.minusSeconds(10 - i)); // the kubelet bumps count and lastTimestamp
            store.put(store.getKey(e), e);
        }
        Event second = event("second", "p", NOW);
        store.put(store.getKey(second), second);
        assertEquals(2, store.size());
        store.remove(store.getKey(second));
        assertEquals(List.of("same"), store.values().map(e -> e.getMetadata().getName()).toList());
    }

    @Test
    void stripsManagedFieldsAndTheLastAppliedCopy() {
        LeanStore<Pod> store = new LeanStore<>();
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("ml").withName("p")
                .addToAnnotations(LeanStore.LAST_APPLIED, "{\"a huge\":\"copy\"}").addToAnnotations("team", "ml")
                .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Apply").build())
                .endMetadata().build();
        store.put(store.getKey(pod), pod);
        Pod kept = store.get("ml/p");
        assertNull(kept.getMetadata().getManagedFields());
        assertEquals(java.util.Map.of("team", "ml"), kept.getMetadata().getAnnotations());
        assertTrue(store.keySet().anyMatch("ml/p"::equals));
    }
}
