package io.acceltriage.incident;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/** A stable identity for a label set, for senders that do not give Alertmanager's fingerprint. */
public final class Fingerprints {
    private Fingerprints() {}

    public static String of(Map<String, String> labels) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> sb.append(k).append('\u0000').append(v).append('\u0001'));
        return sha256(sb.toString()).substring(0, 16);
    }

    public static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
