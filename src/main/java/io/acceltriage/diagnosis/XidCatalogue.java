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

    record File(List<Xid> xids) {}

    private final Map<Integer, Xid> byCode = new HashMap<>();

    XidCatalogue(List<Xid> xids) {
        for (Xid x : xids) {
            Family.parse(x.family());
            if (byCode.put(x.code(), x) != null) {
                throw new DataFiles.InvalidDataFile("knowledge/xid.yaml: XID " + x.code() + " is listed twice");
            }
        }
    }

    public static XidCatalogue load() {
        return new XidCatalogue(DataFiles.resource("knowledge/xid.yaml", File.class).xids());
    }

    public Optional<Xid> get(int code) {
        return Optional.ofNullable(byCode.get(code));
    }
}
