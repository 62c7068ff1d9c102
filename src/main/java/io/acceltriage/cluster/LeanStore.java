package io.acceltriage.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * An informer's store that keeps what the responder reads and drops what only bulks an object up: the
 * managed-fields bookkeeping and kubectl's last-applied copy of the whole object, which together are
 * often larger than the rest of it. A pod is kept trimmed to what the responder reads ({@link TrimmedPod}).
 */
class LeanStore<T extends HasMetadata> implements ItemStore<T> {

    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private final Map<String, T> items = new ConcurrentHashMap<>();

    @Override
    public String getKey(T obj) {
        return Cache.metaNamespaceKeyFunc(obj);
    }

    @Override
    public T put(String key, T obj) {
        return items.put(key, lean(obj));
    }

    @Override
    public T remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public T get(String key) {
        return items.get(key);
    }

    @SuppressWarnings("unchecked")
    static <T extends HasMetadata> T lean(T obj) {
        if (obj instanceof io.fabric8.kubernetes.api.model.Pod pod) return (T) TrimmedPod.of(pod);
        var meta = obj.getMetadata();
        if (meta == null) return obj;
        meta.setManagedFields(null);
        if (meta.getAnnotations() != null && meta.getAnnotations().containsKey(LAST_APPLIED)) {
            Map<String, String> kept = new java.util.HashMap<>(meta.getAnnotations());
            kept.remove(LAST_APPLIED);
            meta.setAnnotations(kept);
        }
        return obj;
    }
}
