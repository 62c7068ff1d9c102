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

    @Test
    void keepsOfAPodWhatTheRespondersReadAndDropsTheRest() {
        LeanStore<Pod> store = new LeanStore<>();
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("ml").withName("w-0").withUid("u1").withResourceVersion("7")
                .addToLabels("app", "train").addToAnnotations("acceltriage.io/last-checkpoint", "2026-12-02T10:00:00Z")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("StatefulSet").withName("train").withUid("u0")
                .withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName("gpu-1").addNewContainer().withName("trainer").withImage("pytorch:24")
                .addNewPort().withName("metrics").withContainerPort(9400).endPort()
                .withNewResources().addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8")).endResources()
                .addNewEnv().withName("SECRET_TOKEN").withValue("x").endEnv().withCommand("torchrun", "train.py")
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().endContainer()
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").endToleration().endSpec()
                .withNewStatus().withPhase("Running").withPodIP("10.0.0.5").withHostIP("10.1.0.1")
                .addNewCondition().withType("Ready").withStatus("False").withReason("ContainersNotReady").endCondition()
                .addNewContainerStatus().withName("trainer").withImage("pytorch:24").withReady(false).withRestartCount(3)
                .withNewState().withNewWaiting().withReason("CrashLoopBackOff").endWaiting().endState()
                .withNewLastState().withNewTerminated().withExitCode(137).withReason("OOMKilled").endTerminated().endLastState()
                .endContainerStatus().endStatus().build();
        store.put(store.getKey(pod), pod);
        Pod kept = store.get("ml/w-0");
        assertEquals("7", kept.getMetadata().getResourceVersion());
        assertEquals(java.util.Map.of("app", "train"), kept.getMetadata().getLabels());
        assertEquals("2026-12-02T10:00:00Z", kept.getMetadata().getAnnotations().get("acceltriage.io/last-checkpoint"));
        assertEquals("StatefulSet", kept.getMetadata().getOwnerReferences().get(0).getKind());
        assertTrue(kept.getMetadata().getOwnerReferences().get(0).getController());
        assertEquals("gpu-1", kept.getSpec().getNodeName());
        var c = kept.getSpec().getContainers().get(0);
        assertEquals("pytorch:24", c.getImage());
        assertEquals("8", c.getResources().getLimits().get("nvidia.com/gpu").getAmount());
        assertEquals(9400, c.getPorts().get(0).getContainerPort());
        assertEquals("10.0.0.5", kept.getStatus().getPodIP());
        assertEquals("ContainersNotReady", kept.getStatus().getConditions().get(0).getReason());
        var s = kept.getStatus().getContainerStatuses().get(0);
        assertEquals(3, s.getRestartCount());
        assertEquals("CrashLoopBackOff", s.getState().getWaiting().getReason());
        assertEquals("OOMKilled", s.getLastState().getTerminated().getReason());
        // what no reader asks for is not held
        assertNull(c.getEnv(), "a container's environment (often secrets) is not kept");
        assertNull(c.getCommand());
        assertNull(c.getVolumeMounts());
        assertNull(kept.getSpec().getVolumes());
        assertNull(kept.getSpec().getTolerations());
        assertNull(kept.getStatus().getHostIP());
        assertTrue(kept.getAdditionalProperties().isEmpty());
    }
}
