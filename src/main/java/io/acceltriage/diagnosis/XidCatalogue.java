package io.acceltriage.diagnosis;

import io.acceltriage.config.DataFiles;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The XID table of {@code knowledge/xid.yaml}. */
public final class XidCatalogue {

    public record Xid(int code, String meaning, boolean fatal, String family, String repeatingFamily, boolean degradation,
            boolean secondary, boolean contained, String action) {
        public Family familyEnum() {
            return Family.parse(family);
        }
    }

    /** A value of XID 154's recovery-action flag and whether it takes the GPU out of service until done. */
    public record RecoveryAction(int flag, String action, boolean fatal) {}

    record File(List<Xid> xids, List<RecoveryAction> recoveryActions) {}

    private final Map<Integer, Xid> byCode = new HashMap<>();
    private final Map<Integer, RecoveryAction> recovery = new HashMap<>();

    XidCatalogue(List<Xid> xids, List<RecoveryAction> recoveryActions) {
        this(xids);
        if (recoveryActions != null) recoveryActions.forEach(r -> recovery.put(r.flag(), r));
    }

    XidCatalogue(List<Xid> xids) {
        for (Xid x : xids) {
            Family.parse(x.family());
            if (byCode.put(x.code(), x) != null) {
                throw new DataFiles.InvalidDataFile("knowledge/xid.yaml: XID " + x.code() + " is listed twice");
            }
        }
    }

    public static XidCatalogue load() {
        File f = DataFiles.resource("knowledge/xid.yaml", File.class);
        return new XidCatalogue(f.xids(), f.recoveryActions());
    }

    /** What a value of XID 154's recovery-action flag asks for. */
    public Optional<RecoveryAction> recovery(int flag) {
        return Optional.ofNullable(recovery.get(flag));
    }

    public Optional<Xid> get(int code) {
        return Optional.ofNullable(byCode.get(code));
    }
}
