package io.acceltriage.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Hears this process's own successful writes to the API server (a cordon, an eviction, a scale), on the
 * client's HTTP path, so the watched view can read those objects again instead of trusting a watch event
 * still on its way: a decision right after an action must count the node it just cordoned. Each write is
 * heard with the resourceVersion the API server answered it with (once its answer has been read; null when
 * the answer names none, as an eviction's Status does): a view holding that version or a later one has
 * caught up and need not ask again.
 */
public final class ClusterWrites implements Interceptor {

    /** The name the client knows this interceptor by. */
    public static final String NAME = "acceltriage-writes";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The answers bigger than this are not kept to read a version from (a write answers one object). */
    private static final int MAX_ANSWER = 1 << 20;

    /** An object written: its resource ("nodes", "pods", "deployments"…), namespace (null when cluster-scoped) and name. */
    public record Written(String resource, String namespace, String name) {}

    /**
     * A write heard: the object, whether the request deleted it, and the resourceVersion of the API server's
     * answer (completed when the answer has been read; null when it names none).
     */
    public record Heard(Written object, boolean deleted, CompletableFuture<String> version) {}

    private final List<java.util.function.Consumer<Heard>> listeners = new CopyOnWriteArrayList<>();
    /** The answer's version of each write in flight, by request (the client hands the same request to both hooks). */
    private final Map<HttpRequest, CompletableFuture<String>> versions = Collections.synchronizedMap(new IdentityHashMap<>());

    public void listen(java.util.function.Consumer<Heard> listener) {
        listeners.add(listener);
    }

    @Override
    public AsyncBody.Consumer<List<ByteBuffer>> consumer(AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
        if ("GET".equals(request.method()) || parse(request.uri().getRawPath()) == null) return consumer;
        CompletableFuture<String> version = new CompletableFuture<>();
        versions.put(request, version);
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        return new AsyncBody.Consumer<>() {
            private boolean hooked;

            @Override
            public void consume(List<ByteBuffer> chunks, AsyncBody body) throws Exception {
                synchronized (answer) {
                    if (!hooked) {
                        hooked = true;
                        body.done().whenComplete((ok, failed) -> version.complete(failed == null ? versionOf(answer) : null));
                    }
                    for (ByteBuffer b : chunks) {
                        if (answer.size() + b.remaining() > MAX_ANSWER) continue;
                        ByteBuffer copy = b.duplicate();
                        byte[] bytes = new byte[copy.remaining()];
                        copy.get(bytes);
                        answer.write(bytes);
                    }
                }
                consumer.consume(chunks, body);
            }

            @Override
            public <U> U unwrap(Class<U> type) {
                return consumer.unwrap(type);
            }
        };
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        if ("GET".equals(request.method())) return;
        // taken out here, not when the answer has been read: an answer with no body would leave it behind for good
        CompletableFuture<String> version = versions.remove(request);
        if (response.code() >= 300) {
            if (version != null) version.complete(null);
            return;
        }
        String path = request.uri().getRawPath();
        Written w = parse(path);
        if (w == null) return;
        // the object's own path (not a subresource such as /eviction or /status) deleted
        boolean deleted = "DELETE".equals(request.method()) && path.endsWith("/" + w.name());
        Heard heard = new Heard(w, deleted, version == null ? CompletableFuture.completedFuture(null) : version);
        listeners.forEach(l -> l.accept(heard));
    }

    private static String versionOf(ByteArrayOutputStream answer) {
        synchronized (answer) {
            try {
                JsonNode object = JSON.readTree(answer.toByteArray());
                if (object == null || "Status".equals(object.path("kind").asText())) return null;
                String v = object.path("metadata").path("resourceVersion").asText("");
                return v.isEmpty() ? null : v;
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /** /api/v1/nodes/N[/status], /api/v1/namespaces/S/pods/N[/eviction], /apis/G/V/namespaces/S/R/N[/scale]; else null. */
    static Written parse(String path) {
        String[] p = path.split("/");
        int at = path.startsWith("/api/") ? 3 : path.startsWith("/apis/") ? 4 : -1;
        if (at < 0 || p.length <= at) return null;
        if ("namespaces".equals(p[at]) && p.length > at + 3) {
            return new Written(p[at + 2], p[at + 1], p[at + 3]);
        }
        if (!"namespaces".equals(p[at]) && p.length > at + 1) {
            return new Written(p[at], null, p[at + 1]);
        }
        return null;
    }
}
