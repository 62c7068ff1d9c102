package io.acceltriage.audit;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The key of the audit chain. An unkeyed SHA-256 chain proves nothing to someone who can write the
 * database: they change a record and compute the chain again. With a key that lives outside the
 * database (a Kubernetes Secret), each record's hash is an HMAC only the key's holder can compute.
 * Records name keys by a fingerprint, never the key; previous keys verify the records written under
 * them after a rotation.
 */
@Singleton
final class ChainKey {

    static final int MIN_LENGTH = 32;
    /** The fingerprint of "no key": records hashed with plain SHA-256, as before keys existed. */
    static final String NONE = "none";

    private final byte[] current;
    private final Map<String, byte[]> known = new LinkedHashMap<>();

    @Inject
    ChainKey(@ConfigProperty(name = "acceltriage.audit.chain-key") Optional<String> current,
            @ConfigProperty(name = "acceltriage.audit.previous-chain-keys") Optional<List<String>> previous) {
        this(current.filter(k -> !k.isBlank()).orElse(null), previous.orElse(List.of()));
    }

    /** For tests and tools: {@code current} null for an unkeyed chain. */
    ChainKey(String current, List<String> previous) {
        this.current = current == null ? null : checked(current, "acceltriage.audit.chain-key (ACCELTRIAGE_AUDIT_CHAIN_KEY)");
        List<String> all = new ArrayList<>(previous);
        for (String p : all) {
            if (p == null || p.isBlank()) continue;
            byte[] k = checked(p.strip(), "acceltriage.audit.previous-chain-keys (ACCELTRIAGE_AUDIT_PREVIOUS_CHAIN_KEYS)");
            known.put(fingerprint(k), k);
        }
        if (this.current != null) known.put(fingerprint(this.current), this.current);
    }

    static ChainKey none() {
        return new ChainKey(null, List.of());
    }

    private static byte[] checked(String key, String where) {
        if (key.length() < MIN_LENGTH) {
            throw new IllegalStateException(where + " has " + key.length() + " characters; use at least " + MIN_LENGTH
                    + " random ones (e.g. openssl rand -hex 32)");
        }
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** The fingerprint records name the current key by, or {@link #NONE}. */
    String fingerprint() {
        return current == null ? NONE : fingerprint(current);
    }

    boolean keyed() {
        return current != null;
    }

    /** The key a fingerprint names, if this process holds it; an empty array for {@link #NONE}. */
    Optional<byte[]> byFingerprint(String fingerprint) {
        if (NONE.equals(fingerprint)) return Optional.of(new byte[0]);
        return Optional.ofNullable(known.get(fingerprint));
    }

    byte[] current() {
        return current == null ? new byte[0] : current;
    }

    /** SHA-256 of a domain-separated key, shortened: names the key without helping anyone guess it. */
    static String fingerprint(byte[] key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("acceltriage audit chain key\n".getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(key)).substring(0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The hash of a record's canonical text: HMAC-SHA256 under {@code key}, plain SHA-256 for the empty key. */
    static String hash(byte[] key, String canonical) {
        try {
            byte[] text = canonical.getBytes(StandardCharsets.UTF_8);
            if (key.length == 0) {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text));
            }
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(text));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 and HmacSHA256 are part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "ChainKey[" + fingerprint() + "]";
    }
}
