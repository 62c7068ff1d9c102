package io.acceltriage.incident;

/** What an incident is about: a node, a pod, a workload, or (when labels name none) the alert itself. */
public record Subject(Kind kind, String namespace, String name) {

    public enum Kind { NODE, POD, WORKLOAD, ALERT }

    public static Subject node(String name) {
        return new Subject(Kind.NODE, null, name);
    }

    public static Subject pod(String namespace, String name) {
        return new Subject(Kind.POD, namespace, name);
    }

    public String key() {
        return kind.name().toLowerCase() + ":" + (namespace == null ? "" : namespace + "/") + name;
    }

    @Override
    public String toString() {
        return key();
    }
}
