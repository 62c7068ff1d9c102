package io.acceltriage.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.sandbox.RequestGate;
import io.acceltriage.sandbox.SimulatedApiServer;
import io.acceltriage.sandbox.SimulatedCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The watched view against the sandbox's simulated API server (fabric8's CRUD mock, which serves watches). */
class WatchedClusterTest {

    static SimulatedCluster world;
    static KubernetesClient observed;
    static final ClusterWrites writes = new ClusterWrites();
    static final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    static WatchedCluster view;

    @BeforeAll
    static void start() {
        world = SimulatedCluster.start();
        observed = new KubernetesClientBuilder().withConfig(world.client().getConfiguration())
                .withHttpClientBuilderConsumer(b -> {
                    b.addOrReplaceInterceptor(ClusterWrites.NAME, writes);
                    b.addOrReplaceInterceptor("count", counting(requests));
                }).build();
        Map<String, ResourceDefinitionContext> kinds = new LinkedHashMap<>(Owners.CUSTOM);
        kinds.put("MPIJob", new ResourceDefinitionContext.Builder().withGroup("kubeflow.org").withVersion("v2beta1")
                .withPlural("mpijobs").withKind("MPIJob").withNamespaced(true).build());
        view = WatchedCluster.start(observed, writes, new WatchedCluster.Settings(Duration.ofSeconds(1), 20, Duration.ofHours(1)), kinds);
        await("the first lists", view::synced);
    }

    @AfterAll
    static void stop() {
        view.close();
        observed.close();
        world.close();
    }

    static Interceptor counting(Map<String, AtomicInteger> into) {
        return new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                into.computeIfAbsent(request.method() + " " + request.uri().getPath(), k -> new AtomicInteger()).incrementAndGet();
            }
        };
    }

    static void await(String what, BooleanSupplier condition) {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) throw new AssertionError("not within 30 s: " + what);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static int count(String key) {
        return requests.getOrDefault(key, new AtomicInteger()).get();
    }

    private static boolean cordoned(Node n) {
        return n != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    @Test
    void holdsTheSandboxFleetAndAnswersWithoutARequest() {
        int nodes = world.client().nodes().list().getItems().size();
        requests.clear();
        assertEquals(nodes, view.nodes().size());
        assertNotNull(view.node("gpu-h100-05"));
        assertFalse(view.podsOn("gpu-h100-05").isEmpty(), "the sandbox runs pods on its GPU nodes");
        assertEquals(Map.of(), Map.copyOf(requests), "every read above came from the view");
    }

    @Test
    void aNodeCordonedThroughTheApiIsSeenByTheView() {
        // the fault injector's fast client: a write this process's interceptor never hears, as another controller's would be
        world.client().nodes().withName("gpu-h100-06").edit(n -> { n.getSpec().setUnschedulable(true); return n; });
        try {
            await("the watch delivers the cordon", () -> cordoned(view.node("gpu-h100-06")));
            assertTrue(view.nodes().stream().anyMatch(n -> n.getMetadata().getName().equals("gpu-h100-06") && cordoned(n)));
        } finally {
            world.client().nodes().withName("gpu-h100-06").edit(n -> { n.getSpec().setUnschedulable(false); return n; });
        }
        await("the watch delivers the uncordon", () -> !cordoned(view.node("gpu-h100-06")));
    }

    @Test
    void ownWriteIsReadAtOnceAndCostsNoRequestOnceTheWatchHasIt() {
        requests.clear();
        observed.nodes().withName("gpu-h100-07").edit(n -> { n.getSpec().setUnschedulable(true); return n; });
        try {
            // at once, whether or not the watch event has arrived (if not, from the API server)
            assertTrue(cordoned(view.node("gpu-h100-07")));
            assertTrue(view.nodes().stream().anyMatch(n -> n.getMetadata().getName().equals("gpu-h100-07") && cordoned(n)));
            await("the view catches up", () -> {
                view.node("gpu-h100-07");
                int before = count("GET /api/v1/nodes/gpu-h100-07");
                view.node("gpu-h100-07");
                return count("GET /api/v1/nodes/gpu-h100-07") == before;
            });
            assertTrue(cordoned(view.node("gpu-h100-07")), "the view itself now holds the cordon");
        } finally {
            observed.nodes().withName("gpu-h100-07").edit(n -> { n.getSpec().setUnschedulable(false); return n; });
        }
    }

    @Test
    void ownWriteTheWatchHasDeliveredIsNotReadAgain() {
        observed.nodes().withName("gpu-h100-08").edit(n -> { n.getSpec().setUnschedulable(true); return n; });
        try {
            await("the watch delivers the cordon", () -> cordoned(view.cachedNode("gpu-h100-08")));
            requests.clear();
            assertTrue(cordoned(view.node("gpu-h100-08")));
            assertTrue(view.nodes().stream().anyMatch(n -> n.getMetadata().getName().equals("gpu-h100-08") && cordoned(n)));
            assertEquals(Map.of(), Map.copyOf(requests), "the view holds the version the cordon was answered with: no request");
        } finally {
            observed.nodes().withName("gpu-h100-08").edit(n -> { n.getSpec().setUnschedulable(false); return n; });
        }
    }

    @Test
    void ownEvictionIsReadFromTheApiUntilTheWatchHasIt() {
        // an eviction is answered with a Status, which names no version of the pod: the view cannot tell it has caught up
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("default").withName("evicted-pod").endMetadata()
                .withNewSpec().withNodeName("gpu-h100-09").addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().withNewStatus().withPhase("Running").endStatus().build();
        world.client().pods().inNamespace("default").resource(pod).create();
        await("the pod appears", () -> view.pod("default", "evicted-pod") != null);
        requests.clear();
        assertTrue(observed.pods().inNamespace("default").withName("evicted-pod").evict(), "the sandbox allows the eviction");
        assertNull(view.pod("default", "evicted-pod"), "evicted: gone at once, as the API server says");
        assertTrue(count("GET /api/v1/namespaces/default/pods/evicted-pod") >= 1, "asked the API server: " + requests);
        // Until the watch delivers the deletion the view's copy is stale and each read asks again (a loaded machine shows
        // it); the first answer once the watch has it settles it, and from then on the view answers alone.
        await("the watch delivers the deletion", () -> view.cachedPod("default", "evicted-pod") == null);
        assertNull(view.pod("default", "evicted-pod"));
        int asked = count("GET /api/v1/namespaces/default/pods/evicted-pod");
        assertNull(view.pod("default", "evicted-pod"));
        assertEquals(asked, count("GET /api/v1/namespaces/default/pods/evicted-pod"), "once it answered gone, the view has caught up");
    }

    @Test
    void ownEvictionsTheViewCannotVouchForAreAskedForAtOnce() throws Exception {
        // a client whose reads of single pods in "drain" are held 300 ms each, counting how many are in flight together
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ClusterWrites heard = new ClusterWrites();
        KubernetesClient held = new KubernetesClientBuilder().withConfig(world.client().getConfiguration())
                .withHttpClientBuilderConsumer(b -> {
                    b.addOrReplaceInterceptor(ClusterWrites.NAME, heard);
                    b.addOrReplaceInterceptor("hold", new Interceptor() {
                        @Override
                        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                            if (!request.method().equals("GET") || !request.uri().getPath().startsWith("/api/v1/namespaces/drain/pods/")) return;
                            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            try {
                                Thread.sleep(300);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                inFlight.decrementAndGet();
                            }
                        }
                    });
                }).build();
        try (WatchedCluster drained = WatchedCluster.start(held, heard, WatchedCluster.Settings.DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                world.client().pods().inNamespace("drain").resource(new PodBuilder().withNewMetadata().withNamespace("drain")
                        .withName("p" + i).endMetadata().withNewSpec().withNodeName("gpu-h100-10").addNewContainer().withName("c")
                        .withImage("busybox").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
            }
            await("the view and its pods", () -> drained.synced() && drained.podsIn("drain").size() == 3);
            for (int i = 0; i < 3; i++) assertTrue(held.pods().inNamespace("drain").withName("p" + i).evict());
            most.set(0);
            assertEquals(List.of(), drained.podsIn("drain"), "evicted: none left, as the API server says");
            assertEquals(3, most.get(), "the three evicted pods were read again at once, not one after another");
        } finally {
            held.close();
        }
    }

    @Test
    void podsAppearAndDisappear() {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("default").withName("watched-pod").addToLabels("app", "watched")
                .endMetadata().withNewSpec().withNodeName("gpu-h100-05").addNewContainer().withName("c").withImage("busybox").endContainer()
                .endSpec().withNewStatus().withPhase("Pending").endStatus().build();
        world.client().pods().inNamespace("default").resource(pod).create();
        await("the pod appears", () -> view.pod("default", "watched-pod") != null);
        assertTrue(view.podsOn("gpu-h100-05").stream().anyMatch(p -> p.getMetadata().getName().equals("watched-pod")));
        assertTrue(view.podsIn("default").stream().anyMatch(p -> p.getMetadata().getName().equals("watched-pod")));
        assertEquals(1, view.podsLabelled("default", Map.of("app", "watched")).size());
        assertTrue(view.pending().stream().anyMatch(p -> p.getMetadata().getName().equals("watched-pod")));
        world.client().pods().inNamespace("default").withName("watched-pod").withGracePeriod(0).delete();
        await("the pod disappears", () -> view.pod("default", "watched-pod") == null);
        assertFalse(view.podsOn("gpu-h100-05").stream().anyMatch(p -> p.getMetadata().getName().equals("watched-pod")));
    }

    @Test
    void resyncsOnItsPeriod() {
        long before = view.resyncs();
        await("a resync (period 1 s)", () -> view.resyncs() > before);
    }

    @Test
    void aKindTheClusterDoesNotServeIsReadFromTheApi() {
        assertFalse(view.watchedKinds().contains("MPIJob"), "MPIJob is not served by the sandbox: " + view.watchedKinds());
        assertTrue(view.watchedKinds().contains("JobSet"), "JobSet is: " + view.watchedKinds());
        AtomicInteger direct = new AtomicInteger();
        HasMetadata none = view.owner("MPIJob", "default", "x", () -> {
            direct.incrementAndGet();
            return null;
        });
        assertNull(none);
        assertEquals(1, direct.get(), "the walker's own read answered");
        view.owner("Deployment", "default", "x", () -> {
            direct.incrementAndGet();
            return null;
        });
        assertEquals(1, direct.get(), "a watched kind answers from the view");
    }

    @Test
    void aViewNotYetSyncedReadsFromTheApi() {
        try (SimulatedApiServer server = SimulatedApiServer.start()) {
            server.apply(Map.of("apiVersion", "v1", "kind", "Node", "metadata", Map.of("name", "lonely")));
            // node lists (the informer's first list) are refused: the view never syncs its nodes
            server.gate(new RequestGate() {
                @Override
                public boolean admit(String method, String path) {
                    return !path.startsWith("/api/v1/nodes?") && !path.equals("/api/v1/nodes");
                }
            });
            try (WatchedCluster unsynced = WatchedCluster.start(server.client(), null, WatchedCluster.Settings.DEFAULT)) {
                assertFalse(unsynced.synced());
                Node lonely = unsynced.node("lonely");
                assertNotNull(lonely, "read from the API server");
                assertEquals("lonely", lonely.getMetadata().getName());
            }
        }
    }

    @Test
    void aWriteIsNamedByItsPath() {
        assertEquals(new ClusterWrites.Written("nodes", null, "n1"), ClusterWrites.parse("/api/v1/nodes/n1"));
        assertEquals(new ClusterWrites.Written("nodes", null, "n1"), ClusterWrites.parse("/api/v1/nodes/n1/status"));
        assertEquals(new ClusterWrites.Written("pods", "ml", "p"), ClusterWrites.parse("/api/v1/namespaces/ml/pods/p/eviction"));
        assertEquals(new ClusterWrites.Written("deployments", "ml", "d"), ClusterWrites.parse("/apis/apps/v1/namespaces/ml/deployments/d/scale"));
        assertNull(ClusterWrites.parse("/api/v1/namespaces/ml/pods"));
        assertNull(ClusterWrites.parse("/version"));
    }
}
