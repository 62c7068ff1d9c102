package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The XID table of {@code knowledge/xid.yaml}: every row of NVIDIA's XID catalogue, each resolved from
 * NVIDIA's immediate-action bucket and what the row itself says.
 */
public final class XidCatalogue {

    /**
     * One XID as the classifier reads it. {@code bucket}: NVIDIA's immediate action (RESTART_APP, RESET_GPU, …);
     * {@code informational}: a test or injected event, a hint only. {@code explains}: the finding groups (a counter's
     * tool, a log signature as {@code log-ID}) the same event shows up as, which this XID's reading governs.
     * {@code service}: a person must service the hardware (CHECK_MECHANICALS: reseat the board, connect its power);
     * the GPU works, slowed, until then, and no reset or reboot changes that.
     */
    public record Xid(int code, String meaning, boolean fatal, String family, String repeatingFamily, boolean degradation,
            boolean secondary, boolean contained, String action, String mnemonic, String bucket, boolean informational,
            List<String> explains, boolean service) {

        public Family familyEnum() {
            return Family.parse(family);
        }
    }

    /**
     * A value of XID 154's recovery-action flag and whether it takes the GPU out of service until done. {@code needs}:
     * what brings it back ({@code reset}: a GPU reset, {@code reboot}: the node's, {@code drain}: the GPU's peers drained
     * first, which no mitigation here does), absent when nothing is needed.
     */
    public record RecoveryAction(int flag, String action, boolean fatal, String needs) {}

    /** What NVIDIA's immediate-action bucket means for a row that says no more. */
    record Bucket(String bucket, String family, Boolean fatal, Boolean degradation, String action, Boolean service) {}

    /** A row as written: what it leaves out comes from its bucket. */
    record Row(int code, String mnemonic, String meaning, String bucket, Boolean fatal, String family, String repeatingFamily,
            Boolean degradation, Boolean secondary, Boolean contained, Boolean informational, String action, List<String> explains) {}

    record File(List<Bucket> buckets, List<Row> xids, List<RecoveryAction> recoveryActions) {}

    private static final String FILE = "knowledge/xid.yaml";

    private final Map<Integer, Xid> byCode = new TreeMap<>();
    private final Map<Integer, RecoveryAction> recovery = new HashMap<>();

    XidCatalogue(List<Xid> xids, List<RecoveryAction> recoveryActions) {
        this(xids);
        if (recoveryActions != null) recoveryActions.forEach(r -> recovery.put(r.flag(), r));
    }

    XidCatalogue(List<Xid> xids) {
        for (Xid x : xids) {
            Family.parse(x.family());
            if (byCode.put(x.code(), x) != null) {
                throw new DataFiles.InvalidDataFile(FILE + ": XID " + x.code() + " is listed twice");
            }
        }
    }

    public static XidCatalogue load() {
        File f = DataFiles.resource(FILE, File.class);
        return new XidCatalogue(resolve(f), f.recoveryActions());
    }

    /** Each row with what its bucket says filled in; a bucket no one defined, or a row left without a family, is an error. */
    static List<Xid> resolve(File f) {
        Map<String, Bucket> buckets = new HashMap<>();
        if (f.buckets() != null) f.buckets().forEach(b -> buckets.put(b.bucket(), b));
        return f.xids().stream().map(r -> {
            Bucket b = r.bucket() == null ? null : buckets.get(r.bucket());
            if (b == null && (r.family() == null || r.action() == null)) {
                throw new DataFiles.InvalidDataFile(FILE + ": XID " + r.code() + " has " + (r.bucket() == null ? "no bucket"
                        : "bucket " + r.bucket() + ", which the file does not define,") + " and does not say its family and action itself");
            }
            if (r.meaning() == null) throw new DataFiles.InvalidDataFile(FILE + ": XID " + r.code() + " has no meaning");
            return new Xid(r.code(), r.meaning(), or(r.fatal(), b == null ? null : b.fatal()),
                    r.family() != null ? r.family() : b.family(), r.repeatingFamily(),
                    or(r.degradation(), b == null ? null : b.degradation()), or(r.secondary(), null), or(r.contained(), null),
                    r.action() != null ? r.action() : b.action(), r.mnemonic(), r.bucket(), or(r.informational(), null),
                    r.explains() == null ? List.of() : List.copyOf(r.explains()), or(null, b == null ? null : b.service()));
        }).toList();
    }

    private static boolean or(Boolean row, Boolean bucket) {
        return row != null ? row : bucket != null && bucket;
    }

    private static final java.util.regex.Pattern RECOVERY_FLAG =
            java.util.regex.Pattern.compile("recovery action changed from 0x[0-9a-fA-F]+(?: \\([^)]*\\))? to 0x([0-9a-fA-F]+)");

    /**
     * The recovery action an XID 154 line asks for ("GPU recovery action changed from 0x0 (None) to 0x2 (Node
     * Reboot Required)"): its new flag as the catalogue reads it; empty when the text carries no flag it knows.
     */
    public Optional<RecoveryAction> recoveryIn(String text) {
        if (text == null) return Optional.empty();
        java.util.regex.Matcher m = RECOVERY_FLAG.matcher(text);
        return m.find() ? recovery(Integer.parseInt(m.group(1), 16)) : Optional.empty();
    }

    /** What a value of XID 154's recovery-action flag asks for. */
    public Optional<RecoveryAction> recovery(int flag) {
        return Optional.ofNullable(recovery.get(flag));
    }

    public Optional<Xid> get(int code) {
        return Optional.ofNullable(byCode.get(code));
    }

    /** Every XID of the catalogue, by code. */
    public List<Xid> all() {
        return List.copyOf(byCode.values());
    }
}
