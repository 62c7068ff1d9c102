package io.acceltriage.sandbox;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Container logs the kubelet would serve, current and previous instance, kept in memory. */
final class PodLogs {

    private record Key(String namespace, String pod, String container, boolean previous) {
    }

    private final Map<Key, String> logs = new ConcurrentHashMap<>();

    void put(String namespace, String pod, String container, boolean previous, String text) {
        logs.put(new Key(namespace, pod, container, previous), text == null ? "" : text);
    }

    /** Appends to the current log, keeping its last 500 lines (a kubelet keeps a bounded file too). */
    void append(String namespace, String pod, String container, String text) {
        logs.merge(new Key(namespace, pod, container, false), text, (old, more) -> {
            String all = old + more;
            String[] lines = all.split("\n", -1);
            return lines.length <= 501 ? all : String.join("\n", Arrays.copyOfRange(lines, lines.length - 501, lines.length));
        });
    }

    Optional<String> get(String namespace, String pod, String container, boolean previous) {
        return Optional.ofNullable(logs.get(new Key(namespace, pod, container, previous)));
    }

    void removePod(String namespace, String pod) {
        logs.keySet().removeIf(k -> k.namespace().equals(namespace) && k.pod().equals(pod));
    }

    void clear() {
        logs.clear();
    }

    /** Applies tailLines first, then limitBytes, the order the kubelet applies them. */
    static String cut(String text, Integer tailLines, Integer limitBytes) {
        String out = text;
        if (tailLines != null && tailLines >= 0) {
            String[] lines = out.split("\n", -1);
            boolean trailingNewline = out.endsWith("\n");
            int count = trailingNewline ? lines.length - 1 : lines.length;
            int from = Math.max(0, count - tailLines);
            String joined = String.join("\n", Arrays.copyOfRange(lines, from, count));
            out = joined.isEmpty() ? "" : joined + (trailingNewline ? "\n" : "");
        }
        if (limitBytes != null && limitBytes >= 0) {
            byte[] bytes = out.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > limitBytes) {
                out = new String(bytes, 0, limitBytes, StandardCharsets.UTF_8);
            }
        }
        return out;
    }
}
