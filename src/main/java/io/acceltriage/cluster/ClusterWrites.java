package io.acceltriage.cluster;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Hears this process's own successful writes to the API server (a cordon, an eviction, a scale), on the
 * client's HTTP path, so the watched view can read those objects again instead of trusting a watch event
 * still on its way: a decision right after an action must count the node it just cordoned.
 */
public final class ClusterWrites implements Interceptor {

    /** The name the client knows this interceptor by. */
    public static final String NAME = "acceltriage-writes";

    /** An object written: its resource ("nodes", "pods", "deployments"…), namespace (null when cluster-scoped) and name. */
    public record Written(String resource, String namespace, String name) {}

    private final List<java.util.function.Consumer<Written>> listeners = new CopyOnWriteArrayList<>();

    public void listen(java.util.function.Consumer<Written> listener) {
        listeners.add(listener);
    }

    @Override
    public void after(HttpRequest request, HttpResponse<?> response, AsyncBody.Consumer<List<ByteBuffer>> consumer) {
        if ("GET".equals(request.method()) || response.code() >= 300) return;
        Written w = parse(request.uri().getRawPath());
        if (w != null) listeners.forEach(l -> l.accept(w));
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
