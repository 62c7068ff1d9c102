package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A Kubernetes API served in process: the fabric8 mock server in CRUD mode (plain HTTP on 127.0.0.1, a
 * free port), plus pod logs, evictions that respect PodDisruptionBudgets, full selectors, and the custom
 * kinds of GPU workloads (JobSet, PyTorchJob, LeaderWorkerSet, ResourceSlice).
 */
public final class SimulatedApiServer implements AutoCloseable {

    /** The HTTP side: the listening mock server and the client bound to it. */
    private record Listening(KubernetesMockServer server, KubernetesClient client) {
    }

    private final ObjectStore store;
    private final PodLogs logs;
    private final SandboxDispatcher dispatcher;
    private final CompletableFuture<Listening> listening;

    private SimulatedApiServer(ObjectStore store, PodLogs logs, SandboxDispatcher dispatcher) {
        this.store = store;
        this.logs = logs;
        this.dispatcher = dispatcher;
        // binding the port and building the client take a second on a cold JVM; the object store does not
        // need them, so a caller can fill the store meanwhile (see startInBackground)
        this.listening = CompletableFuture.supplyAsync(() -> listen(dispatcher));
    }

    public static SimulatedApiServer start() {
        SimulatedApiServer server = startInBackground();
        server.listening();
        return server;
    }

    /** Returns at once; the store is usable now, the HTTP API as soon as it listens. */
    static SimulatedApiServer startInBackground() {
        KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(Kinds.CUSTOM);
        ObjectStore store = new ObjectStore(crud);
        PodLogs logs = new PodLogs();
        return new SimulatedApiServer(store, logs, new SandboxDispatcher(store, logs));
    }

    private static Listening listen(SandboxDispatcher dispatcher) {
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), new HashMap<>(), dispatcher, false);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("cannot resolve 127.0.0.1", e);
        }
        KubernetesClient client = server.createClient(builder -> builder.withConfig(new ConfigBuilder(Config.empty())
                .withMasterUrl(server.url("/"))
                .withNamespace("default")
                .withHttp2Disable(true)
                // a refused or failed request is an answer to report, not one to retry for seconds
                .withRequestRetryBackoffLimit(0)
                .build()));
        return new Listening(server, client);
    }

    private Listening listening() {
        try {
            return listening.join();
        } catch (CompletionException e) {
            throw new IllegalStateException("the simulated API server did not start: " + e.getCause(), e.getCause());
        }
    }

    /** One client bound to this server, shared by every caller. */
    public KubernetesClient client() {
        return listening().client();
    }

    public String url() {
        return listening().server().url("/");
    }

    public void putLog(String namespace, String pod, String container, boolean previous, String text) {
        logs.put(namespace, pod, container, previous, text);
    }

    /** Lets a test hold or drop requests (see {@link RequestGate}); null opens the gate again. */
    public void gate(RequestGate gate) {
        dispatcher.gate(gate);
    }

    /** The writes this API server accepted, oldest first (see {@link SandboxDispatcher#writes()}). */
    public java.util.List<String> writes() {
        return dispatcher.writes();
    }

    public void clearLogs() {
        logs.clear();
    }

    /**
     * Creates an object as {@code kubectl get -o yaml} shows it, of any built-in or registered custom
     * kind, keeping its status and its metadata.uid when given.
     */
    public void apply(Map<String, Object> object) {
        store.create(ObjectStore.JSON.valueToTree(object));
    }

    void apply(HasMetadata object) {
        store.create(Kinds.SERIALIZATION.convertValue(object, ObjectNode.class));
    }

    /** Creates many objects in one pass (see {@link ObjectStore#createAll}): seeding at scale. */
    void applyAll(java.util.List<? extends HasMetadata> objects) {
        store.createAll(objects.stream().map(o -> Kinds.SERIALIZATION.convertValue(o, ObjectNode.class)).toList());
    }

    ObjectStore store() {
        return store;
    }

    PodLogs logs() {
        return logs;
    }

    SandboxDispatcher dispatcher() {
        return dispatcher;
    }

    @Override
    public void close() {
        Listening l = listening();
        l.client().close();
        l.server().destroy();
    }
}
