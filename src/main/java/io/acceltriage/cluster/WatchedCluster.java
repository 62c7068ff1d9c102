package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The cluster as the responder reads it, kept by watches (fabric8 shared informers) instead of read
 * request by request: nodes, pods, the workload kinds the owner chain passes through (built-in ones, and
 * JobSet, LeaderWorkerSet and PyTorchJob where the cluster serves them), PodDisruptionBudgets and events.
 * A kind not yet synced, or not watched, is read from the API server as before. This process's own
 * writes ({@link ClusterWrites}) make the objects written read from the API server until the watch has
 * delivered them, so a cap counts the node cordoned a moment ago; once the view holds the version a write
 * was answered with (or a deleted object is gone from it), the object is the view's again without a request.
 */
public final class WatchedCluster implements ClusterReads, AutoCloseable {

    /** How often the informers resync; how many events per object and how old the view keeps. */
    public record Settings(Duration resync, int eventsPerObject, Duration eventAge) {
        public static final Settings DEFAULT = new Settings(Duration.ofMinutes(10), 20, Duration.ofHours(1));
    }

    private static final String BY_NODE = "node";
    private static final String BY_PHASE = "phase";

    private final KubernetesClient client;
    private final DirectReads direct;
    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    private final SharedIndexInformer<Event> events;
    private final SharedIndexInformer<PodDisruptionBudget> budgets;
    /** Owner kinds watched, by kind; a kind absent here is read from the API server. */
    private final Map<String, SharedIndexInformer<? extends HasMetadata>> owners = new LinkedHashMap<>();
    private final Map<String, String> resources = new ConcurrentHashMap<>();
    /** Objects this process wrote that the watch may not have delivered yet: "resource|ns/name". */
    private final Map<String, Pending> written = new ConcurrentHashMap<>();

    /** A write of this process: whether it deleted the object, and the resourceVersion the API server answered it with. */
    private record Pending(boolean deleted, java.util.concurrent.CompletableFuture<String> version) {

        /**
         * The view's copy shows the write without asking the API server: it holds the answered version or a later one
         * (for a deletion: the object gone, or a later version of it; the answer of an immediate deletion may carry the
         * version before it).
         */
        boolean heldBy(HasMetadata cached) {
            if (deleted && cached == null) return true;
            String answered = version.getNow(null);
            if (answered == null || cached == null) return false;
            int c = compare(cached.getMetadata().getResourceVersion(), answered);
            return deleted ? c > 0 : c >= 0;
        }
    }
    private final java.util.concurrent.atomic.AtomicLong resyncs = new java.util.concurrent.atomic.AtomicLong();
    /** Reads of this process's own writes the view cannot vouch for yet, several at once. */
    private final java.util.concurrent.ExecutorService rereads = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "acceltriage-view-reread");
        t.setDaemon(true);
        return t;
    });

    private WatchedCluster(KubernetesClient client, Settings settings, Map<String, ResourceDefinitionContext> customKinds) {
        this.client = client;
        this.direct = new DirectReads(client);
        long resync = settings.resync().toMillis();
        nodes = lean(client.nodes().runnableInformer(resync));
        pods = lean(client.pods().inAnyNamespace().runnableInformer(resync));
        pods.addIndexers(Map.of(
                BY_NODE, p -> p.getSpec() == null || p.getSpec().getNodeName() == null ? List.of() : List.of(p.getSpec().getNodeName()),
                BY_PHASE, p -> p.getStatus() == null || p.getStatus().getPhase() == null ? List.of() : List.of(p.getStatus().getPhase())));
        events = client.v1().events().inAnyNamespace().runnableInformer(resync);
        // the bounded store drops events behind the cache's back: no index may point at them
        events.removeNamespaceIndex().itemStore(new BoundedEvents(settings.eventsPerObject(), settings.eventAge(), Clock.systemUTC()));
        budgets = lean(client.policy().v1().podDisruptionBudget().inAnyNamespace().runnableInformer(resync));
        owner("Pod", "pods", pods);
        owner("ReplicaSet", "replicasets", lean(client.apps().replicaSets().inAnyNamespace().runnableInformer(resync)));
        owner("Deployment", "deployments", lean(client.apps().deployments().inAnyNamespace().runnableInformer(resync)));
        owner("StatefulSet", "statefulsets", lean(client.apps().statefulSets().inAnyNamespace().runnableInformer(resync)));
        owner("DaemonSet", "daemonsets", lean(client.apps().daemonSets().inAnyNamespace().runnableInformer(resync)));
        owner("Job", "jobs", lean(client.batch().v1().jobs().inAnyNamespace().runnableInformer(resync)));
        customKinds.forEach((kind, ctx) -> {
            if (served(client, ctx)) {
                owner(kind, ctx.getPlural(), lean(client.genericKubernetesResources(ctx).inAnyNamespace().runnableInformer(resync)));
            }
        });
        // a resync hands every held node to this handler again: counted so that it can be seen to happen
        nodes.addEventHandlerWithResyncPeriod(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<Node>() {
            public void onAdd(Node n) { }

            public void onUpdate(Node before, Node after) {
                if (before == after) resyncs.incrementAndGet();
            }

            public void onDelete(Node n, boolean finalStateUnknown) { }
        }, resync);
        resources.put("Node", "nodes");
        resources.put("Event", "events");
        resources.put("PodDisruptionBudget", "poddisruptionbudgets");
    }

    /**
     * Starts watching; returns at once, the first lists arriving in the background ({@link #synced()}).
     * {@code writes} hears this process's writes; null when nothing writes through a client it observes.
     */
    public static WatchedCluster start(KubernetesClient client, ClusterWrites writes, Settings settings) {
        return start(client, writes, settings, Owners.CUSTOM);
    }

    static WatchedCluster start(KubernetesClient client, ClusterWrites writes, Settings settings,
            Map<String, ResourceDefinitionContext> customKinds) {
        WatchedCluster view = new WatchedCluster(client, settings, customKinds);
        // only what the view holds: a Lease renewed every few seconds is nothing it would re-read
        if (writes != null) writes.listen(h -> {
            ClusterWrites.Written w = h.object();
            if (view.resources.containsValue(w.resource())) {
                view.written.put(key(w.resource(), w.namespace(), w.name()), new Pending(h.deleted(), h.version()));
            }
        });
        // an API server down at start, or a watch refused, is retried with the informer's backoff, never given up on:
        // until then the reads go to the API server
        view.informers().forEach(i -> i.exceptionHandler((started, failure) -> true).start());
        return view;
    }

    /** True once every watched kind has had its first full list. */
    public boolean synced() {
        return informers().stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** Resyncs seen (each hands every held node to the handlers again). */
    long resyncs() {
        return resyncs.get();
    }

    /** Objects held, by resource (the readiness check and the memory benchmark report them). */
    public Map<String, Integer> sizes() {
        Map<String, Integer> out = new LinkedHashMap<>();
        out.put("nodes", nodes.getStore().list().size());
        out.put("events", events.getStore().list().size());
        out.put("poddisruptionbudgets", budgets.getStore().list().size());
        owners.forEach((kind, inf) -> out.put(resources.get(kind), inf.getStore().list().size()));
        return out;
    }

    /** The kinds the view watches (a custom kind the cluster does not serve is not among them). */
    public java.util.Set<String> watchedKinds() {
        java.util.Set<String> out = new java.util.LinkedHashSet<>(List.of("Node", "Event", "PodDisruptionBudget"));
        out.addAll(owners.keySet());
        return out;
    }

    @Override
    public KubernetesClient client() {
        return client;
    }

    @Override
    public Node node(String name) {
        if (!nodes.hasSynced()) return direct.node(name);
        return fresh("nodes", null, name, nodes, () -> direct.node(name));
    }

    @Override
    public List<Node> nodes() {
        if (!nodes.hasSynced()) return direct.nodes();
        return merged("nodes", nodes, nodes.getStore().list(), n -> true);
    }

    @Override
    public Pod pod(String namespace, String name) {
        if (!pods.hasSynced()) return direct.pod(namespace, name);
        return fresh("pods", namespace, name, pods, () -> direct.pod(namespace, name));
    }

    @Override
    public List<Pod> podsOn(String node) {
        if (!pods.hasSynced()) return direct.podsOn(node);
        return merged("pods", pods, pods.getIndexer().byIndex(BY_NODE, node),
                p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()));
    }

    @Override
    public List<Pod> podsIn(String namespace) {
        if (!pods.hasSynced()) return direct.podsIn(namespace);
        return merged("pods", pods, pods.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace),
                p -> namespace.equals(p.getMetadata().getNamespace()));
    }

    @Override
    public List<Pod> podsLabelled(String namespace, Map<String, String> labels) {
        if (!pods.hasSynced()) return direct.podsLabelled(namespace, labels);
        Predicate<Pod> matches = p -> namespace.equals(p.getMetadata().getNamespace()) && p.getMetadata().getLabels() != null
                && p.getMetadata().getLabels().entrySet().containsAll(labels.entrySet());
        return merged("pods", pods, pods.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace).stream().filter(matches).toList(), matches);
    }

    @Override
    public List<Pod> pending() {
        if (!pods.hasSynced()) return direct.pending();
        return merged("pods", pods, pods.getIndexer().byIndex(BY_PHASE, "Pending"),
                p -> p.getStatus() != null && "Pending".equals(p.getStatus().getPhase()));
    }

    @Override
    public List<Event> events() {
        return events.hasSynced() ? events.getStore().list() : direct.events();
    }

    @Override
    public List<PodDisruptionBudget> budgets(String namespace) {
        if (!budgets.hasSynced()) return direct.budgets(namespace);
        return merged("poddisruptionbudgets", budgets, budgets.getIndexer().byIndex(Cache.NAMESPACE_INDEX, namespace),
                b -> namespace.equals(b.getMetadata().getNamespace()));
    }

    @Override
    @SuppressWarnings("unchecked")
    public HasMetadata owner(String kind, String namespace, String name, Supplier<HasMetadata> read) {
        SharedIndexInformer<HasMetadata> inf = (SharedIndexInformer<HasMetadata>) owners.get(kind);
        if (inf == null || !inf.hasSynced()) return read.get();
        return fresh(resources.get(kind), namespace, name, inf, read);
    }

    @Override
    public void close() {
        informers().forEach(SharedIndexInformer::stop);
        rereads.shutdownNow();
    }

    private List<SharedIndexInformer<? extends HasMetadata>> informers() {
        List<SharedIndexInformer<? extends HasMetadata>> all = new ArrayList<>(List.of(nodes, events, budgets));
        all.addAll(owners.values());
        return all;
    }

    private void owner(String kind, String resource, SharedIndexInformer<? extends HasMetadata> informer) {
        owners.put(kind, informer);
        resources.put(kind, resource);
    }

    /** One object: the view's, unless this process wrote it and the watch has not caught up with the API server yet. */
    private <T extends HasMetadata> T fresh(String resource, String ns, String name, SharedIndexInformer<T> inf, Supplier<T> read) {
        String storeKey = ns == null ? name : ns + "/" + name;
        String key = key(resource, ns, name);
        Pending pending = written.get(key);
        T cached = inf.getStore().getByKey(storeKey);
        if (pending == null) return cached;
        // the watch has delivered the write: no request
        if (pending.heldBy(cached)) {
            written.remove(key, pending);
            return cached;
        }
        T now = read.get();
        if (caughtUp(inf.getStore().getByKey(storeKey), now)) written.remove(key, pending);
        return now;
    }

    /** A list from the view with the objects this process wrote re-read (and left out where they no longer belong). */
    private <T extends HasMetadata> List<T> merged(String resource, SharedIndexInformer<T> inf, List<T> cached, Predicate<T> belongs) {
        String prefix = resource + "|";
        List<String> mine = written.keySet().stream().filter(k -> k.startsWith(prefix)).toList();
        if (mine.isEmpty()) return cached;
        Map<String, T> out = new LinkedHashMap<>();
        cached.forEach(o -> out.put(Cache.metaNamespaceKeyFunc(o), o));
        // the objects the view cannot vouch for yet (a drain's evictions) are asked for at once, not one after another
        Map<String, java.util.concurrent.CompletableFuture<T>> asked = new LinkedHashMap<>();
        for (String k : mine) {
            String storeKey = k.substring(prefix.length());
            int slash = storeKey.indexOf('/');
            String ns = slash < 0 ? null : storeKey.substring(0, slash);
            String name = slash < 0 ? storeKey : storeKey.substring(slash + 1);
            java.util.function.Supplier<T> now = () -> fresh(resource, ns, name, inf, () -> reread(inf, ns, name));
            asked.put(storeKey, mine.size() == 1 ? java.util.concurrent.CompletableFuture.completedFuture(now.get())
                    : java.util.concurrent.CompletableFuture.supplyAsync(now, rereads));
        }
        for (Map.Entry<String, java.util.concurrent.CompletableFuture<T>> a : asked.entrySet()) {
            T now;
            try {
                now = a.getValue().join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r; // the API server's failure, as a direct read throws it
                throw e;
            }
            out.remove(a.getKey());
            if (now != null && belongs.test(now)) out.put(a.getKey(), now);
        }
        return new ArrayList<>(out.values());
    }

    @SuppressWarnings("unchecked")
    private <T extends HasMetadata> T reread(SharedIndexInformer<T> inf, String ns, String name) {
        if (inf == nodes) return (T) direct.node(name);
        if (inf == pods) return (T) direct.pod(ns, name);
        if (inf == budgets) return (T) client.policy().v1().podDisruptionBudget().inNamespace(ns).withName(name).get();
        return null;
    }

    /** The view holds the version the API server just answered with, or a later one. */
    private static boolean caughtUp(HasMetadata cached, HasMetadata now) {
        if (now == null || cached == null) return now == cached;
        return compare(cached.getMetadata().getResourceVersion(), now.getMetadata().getResourceVersion()) >= 0;
    }

    /**
     * Two resourceVersions as numbers (what the API server's etcd gives); opaque ones say only equal (0) or not
     * comparable ({@link Integer#MIN_VALUE}).
     */
    private static int compare(String a, String b) {
        try {
            return Long.compare(Long.parseLong(a), Long.parseLong(b));
        } catch (NumberFormatException e) {
            return Objects.equals(a, b) ? 0 : Integer.MIN_VALUE;
        }
    }

    /** The view's own copy of a node, whatever this process wrote (tests). */
    Node cachedNode(String name) {
        return nodes.getStore().getByKey(name);
    }

    /** The view's own copy of a pod, whatever this process wrote (tests). */
    Pod cachedPod(String namespace, String name) {
        return pods.getStore().getByKey(namespace + "/" + name);
    }

    private static String key(String resource, String ns, String name) {
        return resource + "|" + (ns == null ? "" : ns + "/") + name;
    }

    private static <T extends HasMetadata> SharedIndexInformer<T> lean(SharedIndexInformer<T> informer) {
        return informer.itemStore(new LeanStore<>());
    }

    /** Whether the API server serves the custom kind (its CRD installed): one discovery read at start. */
    private static boolean served(KubernetesClient client, ResourceDefinitionContext ctx) {
        try {
            var resources = client.getApiResources(ctx.getGroup() + "/" + ctx.getVersion());
            return resources != null && resources.getResources().stream().anyMatch(r -> ctx.getPlural().equals(r.getName()));
        } catch (KubernetesClientException e) {
            return false;
        }
    }

}
