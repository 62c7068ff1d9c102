package io.acceltriage.drill;

import io.acceltriage.config.DataFiles;
import io.acceltriage.policy.Durations;
import io.acceltriage.policy.ForcedDryRun;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The drills bundled under {@code knowledge/drills/}, listed by its {@code index.yaml}; an invalid file refuses the start. */
@ApplicationScoped
public class DrillCatalog {

    static final String BUNDLED = "knowledge/drills/";

    /**
     * A drill: the fault(s) to inject (as {@code POST /api/v1/sandbox/faults} takes them), the stages the
     * incident must reach (of {@link Policy#OBJECTIVE_STAGES}) and how long the drill waits for them.
     */
    public record Drill(String name, String description, List<Fault> faults, List<String> expect, Duration timeout, ShadowAlert alert) {}

    /**
     * The alert a shadow drill delivers instead of injecting its faults: the one the fault would fire (labels
     * identify, annotations are prose). Null when the drill file has none: that drill runs on the sandbox only.
     */
    public record ShadowAlert(Map<String, String> labels, Map<String, String> annotations) {}

    record File(String apiVersion, String kind, String description, List<Fault> faults, List<String> expect, String timeout,
            ShadowAlert alert) {}

    record Index(List<String> drills) {}

    private final Map<String, Drill> drills;

    DrillCatalog() {
        this(load());
    }

    DrillCatalog(Map<String, Drill> drills) {
        this.drills = drills;
    }

    public Optional<Drill> find(String name) {
        return Optional.ofNullable(name == null ? null : drills.get(name));
    }

    public List<String> names() {
        return List.copyOf(drills.keySet());
    }

    static Map<String, Drill> load() {
        Map<String, Drill> out = new LinkedHashMap<>();
        for (String name : DataFiles.resource(BUNDLED + "index.yaml", Index.class).drills()) {
            String path = BUNDLED + name + ".yaml";
            try (var in = DrillCatalog.class.getClassLoader().getResourceAsStream(path)) {
                if (in == null) throw new DataFiles.InvalidDataFile(BUNDLED + "index.yaml: lists " + name + ", but " + path + " is missing");
                out.put(name, parse(name, path, in.readAllBytes()));
            } catch (IOException e) {
                throw new DataFiles.InvalidDataFile(path + ": cannot read: " + e.getMessage());
            }
        }
        return out;
    }

    static Drill parse(String name, String path, byte[] content) {
        File f = DataFiles.parse(path, content, File.class);
        if (!"acceltriage.io/v1".equals(f.apiVersion()) || !"Drill".equals(f.kind())) {
            throw new DataFiles.InvalidDataFile(path + ":1: write apiVersion: acceltriage.io/v1 and kind: Drill");
        }
        if (f.faults() == null || f.faults().isEmpty()) {
            throw new DataFiles.InvalidDataFile(path + ": faults is required: at least one fault, e.g. {kind: xid, node: gpu-h100-04, xid: 79}");
        }
        if (f.expect() == null || f.expect().isEmpty() || !Policy.OBJECTIVE_STAGES.containsAll(f.expect())) {
            throw new DataFiles.InvalidDataFile(path + ": expect must list stages of " + Policy.OBJECTIVE_STAGES + ", got " + f.expect());
        }
        Duration timeout;
        try {
            timeout = Durations.parse(f.timeout() == null ? "120s" : f.timeout());
        } catch (IllegalArgumentException e) {
            throw new DataFiles.InvalidDataFile(path + ": timeout: " + e.getMessage());
        }
        ShadowAlert alert = f.alert();
        if (alert != null) {
            if (alert.labels() == null || alert.labels().get("alertname") == null || alert.labels().get("node") == null) {
                throw new DataFiles.InvalidDataFile(path + ": alert.labels needs at least alertname and node, e.g."
                        + " {alertname: GpuXidDeviceFault, severity: critical, node: gpu-h100-04, gpu: \"3\", xid: \"79\"}");
            }
            if (alert.labels().containsKey(ForcedDryRun.DRILL_LABEL)) {
                throw new DataFiles.InvalidDataFile(path + ": alert.labels." + ForcedDryRun.DRILL_LABEL + " is set by the drill itself; remove it");
            }
            alert = new ShadowAlert(Map.copyOf(alert.labels()), alert.annotations() == null ? Map.of() : Map.copyOf(alert.annotations()));
        }
        return new Drill(name, f.description(), List.copyOf(f.faults()), List.copyOf(f.expect()), timeout, alert);
    }
}
