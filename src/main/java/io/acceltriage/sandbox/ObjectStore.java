package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The objects of the simulated cluster, read and written in process. It shares the CRUD dispatcher's map,
 * so what it writes is what the HTTP API serves (watchers included), and one lock orders its writes with
 * the HTTP requests.
 */
final class ObjectStore {

    static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesCrudDispatcher crud;
    private final ReentrantLock lock = new ReentrantLock();

    ObjectStore(KubernetesCrudDispatcher crud) {
        this.crud = crud;
    }

    KubernetesCrudDispatcher crud() {
        return crud;
    }

    <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Creates the object as given: unlike a POST, it keeps status and metadata.uid, because seeded
     * objects and scenario objects are snapshots of a cluster that already ran its controllers.
     */
    ObjectNode create(ObjectNode object) {
        return locked(() -> {
            Placed placed = place(object);
            if (crud.findResource(placed.key()) != null) {
                throw alreadyExists(object, placed);
            }
            write(placed.path(), placed.key(), null, object);
            return object;
        });
    }

    /**
     * Creates many objects as {@link #create} does, in time linear in what the store holds plus what is
     * added: the CRUD dispatcher finds an object by scanning every one it holds, so creating one at a time
     * is quadratic (100,000 pods took hours); here the store is scanned once for the names already taken.
     */
    void createAll(List<ObjectNode> objects) {
        locked(() -> {
            java.util.Set<String> taken = new java.util.HashSet<>();
            for (AttributeSet key : crud.getMap().keySet()) taken.add(identity(key));
            for (ObjectNode object : objects) {
                Placed placed = place(object);
                if (!taken.add(identity(placed.key().add(new Attribute(KubernetesAttributesExtractor.NAME,
                        object.path("metadata").path("name").asText()))))) {
                    throw alreadyExists(object, placed);
                }
                write(placed.path(), placed.key(), null, object);
            }
            return null;
        });
    }

    /** Where an object to create goes, its metadata completed (namespace, uid, creation time, generation, version). */
    private record Placed(Kinds.Kind kind, String namespace, String path, AttributeSet key) {
    }

    private Placed place(ObjectNode object) {
        Kinds.Kind kind = kindOf(object);
        ObjectNode metadata = object.with("metadata");
        String name = metadata.path("name").asText("");
        if (name.isEmpty()) {
            throw new IllegalArgumentException(kind.kind() + " needs metadata.name");
        }
        String namespace = null;
        if (kind.namespaced()) {
            namespace = metadata.path("namespace").asText("");
            if (namespace.isEmpty()) {
                namespace = "default";
                metadata.put("namespace", namespace);
            }
        } else {
            metadata.remove("namespace");
        }
        String path = kind.objectPath(namespace, name);
        AttributeSet key = crud.getKey(path);
        if (metadata.path("uid").asText("").isEmpty()) {
            metadata.put("uid", UUID.randomUUID().toString());
        }
        if (metadata.path("creationTimestamp").asText("").isEmpty()) {
            metadata.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        }
        if (!metadata.has("generation")) {
            metadata.put("generation", 1);
        }
        metadata.put("resourceVersion", String.valueOf(crud.requestResourceVersion()));
        return new Placed(kind, namespace, path, key);
    }

    private static IllegalStateException alreadyExists(ObjectNode object, Placed placed) {
        return new IllegalStateException(placed.kind().plural() + " \"" + object.path("metadata").path("name").asText() + "\" already exists"
                + (placed.namespace() == null ? "" : " in namespace " + placed.namespace()));
    }

    /** Kind (by plural), namespace and name of a stored or wanted object's key. */
    private static String identity(AttributeSet key) {
        return values(key, KubernetesAttributesExtractor.PLURAL) + "|" + values(key, KubernetesAttributesExtractor.NAMESPACE)
                + "|" + values(key, KubernetesAttributesExtractor.NAME);
    }

    private static String values(AttributeSet key, String attribute) {
        Attribute a = key.getAttribute(attribute);
        return a == null ? "" : a.getValues().toString();
    }

    /** Replaces an existing object (found by kind, namespace and name), keeping its uid and creation time. */
    ObjectNode replace(ObjectNode object) {
        return locked(() -> {
            Kinds.Kind kind = kindOf(object);
            ObjectNode metadata = object.with("metadata");
            String namespace = kind.namespaced() ? metadata.path("namespace").asText("default") : null;
            String path = kind.objectPath(namespace, metadata.path("name").asText());
            Map.Entry<AttributeSet, String> existing = crud.findResource(crud.getKey(path));
            if (existing == null) {
                throw new IllegalStateException(kind.plural() + " \"" + metadata.path("name").asText()
                        + "\" not found");
            }
            ObjectNode old = parse(existing.getValue());
            metadata.set("uid", old.path("metadata").path("uid"));
            metadata.set("creationTimestamp", old.path("metadata").path("creationTimestamp"));
            metadata.put("resourceVersion", String.valueOf(crud.requestResourceVersion()));
            write(path, crud.getKey(path), existing.getKey(), object);
            return object;
        });
    }

    Optional<ObjectNode> get(Kinds.Kind kind, String namespace, String name) {
        return locked(() -> Optional.ofNullable(crud.findResource(crud.getKey(kind.objectPath(namespace, name))))
                .map(e -> parse(e.getValue())));
    }

    /** Objects of a kind, in one namespace or (namespace null) in all. */
    List<ObjectNode> list(Kinds.Kind kind, String namespace) {
        String path = kind.collectionPath(namespace);
        return locked(() -> {
            AttributeSet query = crud.getKey(path);
            List<ObjectNode> items = new ArrayList<>();
            for (Map.Entry<AttributeSet, String> e : crud.getMap().entrySet()) {
                if (e.getKey().matches(query)) {
                    items.add(parse(e.getValue()));
                }
            }
            items.sort((a, b) -> (a.path("metadata").path("namespace").asText() + "/"
                    + a.path("metadata").path("name").asText())
                    .compareTo(b.path("metadata").path("namespace").asText() + "/"
                            + b.path("metadata").path("name").asText()));
            return items;
        });
    }

    boolean delete(Kinds.Kind kind, String namespace, String name) {
        return locked(() -> {
            String path = kind.objectPath(namespace, name);
            Map.Entry<AttributeSet, String> existing = crud.findResource(crud.getKey(path));
            if (existing == null) {
                return false;
            }
            crud.processEvent(path, crud.getKey(path), existing.getKey(), null, null);
            return true;
        });
    }

    /** Removes every object, telling watchers, and forgets nothing about the custom kinds. */
    void clear() {
        locked(() -> {
            for (AttributeSet key : new ArrayList<>(crud.getMap().keySet())) {
                crud.processEvent("", key, key, null, null);
            }
            return null;
        });
    }

    static Kinds.Kind kindOf(JsonNode object) {
        return Kinds.of(object.path("apiVersion").asText(null), object.path("kind").asText(null));
    }

    static ObjectNode parse(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalStateException("stored object is not JSON: " + e.getMessage(), e);
        }
    }

    private void write(String path, AttributeSet key, AttributeSet oldKey, ObjectNode object) {
        String json = object.toString();
        // the CRUD server indexes an object by these fields only; building just them is much cheaper than
        // deserialising the whole object, which matters for seeding speed
        GenericKubernetesResource resource = new GenericKubernetesResource();
        resource.setApiVersion(object.path("apiVersion").asText());
        resource.setKind(object.path("kind").asText());
        ObjectMeta meta = new ObjectMeta();
        JsonNode metadata = object.path("metadata");
        meta.setName(metadata.path("name").asText());
        meta.setNamespace(metadata.path("namespace").asText(null));
        if (metadata.path("labels").isObject()) {
            Map<String, String> labels = new LinkedHashMap<>();
            metadata.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            meta.setLabels(labels);
        }
        resource.setMetadata(meta);
        AttributeSet pathKey = key.add(new Attribute(KubernetesAttributesExtractor.NAME,
                object.path("metadata").path("name").asText()));
        crud.processEvent(path, pathKey, oldKey, resource, json);
    }
}
