package io.acceltriage.sandbox;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * One alert as Alertmanager puts it in a version 4 webhook payload. The fingerprint is computed as
 * Prometheus computes a label set's fingerprint (FNV-1a 64 over sorted names and values, each followed
 * by the separator byte 0xff), so the same labels always give the same 16 hex digits.
 */
@JsonPropertyOrder({"status", "labels", "annotations", "startsAt", "endsAt", "generatorURL", "fingerprint"})
public record FiredAlert(String status, Map<String, String> labels, Map<String, String> annotations,
        String startsAt, String endsAt, String generatorURL, String fingerprint) {

    /** Alertmanager's zero time: the alert is still firing. */
    public static final String ZERO_TIME = "0001-01-01T00:00:00Z";

    public FiredAlert {
        labels = Map.copyOf(new TreeMap<>(labels));
        annotations = Map.copyOf(annotations);
    }

    static FiredAlert firing(Map<String, String> labels, Map<String, String> annotations, String startsAt,
            String generatorURL) {
        return new FiredAlert("firing", new TreeMap<>(labels), new TreeMap<>(annotations), startsAt, ZERO_TIME,
                generatorURL, fingerprint(labels));
    }

    @Override
    public Map<String, String> labels() {
        return new TreeMap<>(labels);
    }

    @Override
    public Map<String, String> annotations() {
        return new TreeMap<>(annotations);
    }

    static String fingerprint(Map<String, String> labels) {
        long hash = 0xcbf29ce484222325L;
        for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
            hash = add(hash, label.getKey());
            hash = addByte(hash, (byte) 0xff);
            hash = add(hash, label.getValue());
            hash = addByte(hash, (byte) 0xff);
        }
        return String.format("%016x", hash);
    }

    private static long add(long hash, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            hash = addByte(hash, b);
        }
        return hash;
    }

    private static long addByte(long hash, byte b) {
        return (hash ^ (b & 0xff)) * 0x100000001b3L;
    }
}
