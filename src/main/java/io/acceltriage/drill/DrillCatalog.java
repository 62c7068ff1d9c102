package io.acceltriage.drill;

import io.acceltriage.config.DataFiles;
import io.acceltriage.policy.Durations;
import io.acceltriage.policy.ForcedDryRun;
import io.acceltriage.policy.Policy;
import io.acceltriage.sandbox.Fault;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The drills bundled under {@code knowledge/drills/} (listed by its {@code index.yaml}), then the operator's
 * folder ({@code ACCELTRIAGE_DRILLS_DIR}, {@code acceltriage.drills.dir}: one {@code NAME.yaml} per drill, e.g.
 * the bundled drills with a real cluster's node names; a file named like a bundled drill replaces it). An
 * invalid file, or a configured folder that is not one, refuses the start with one line naming the file,
 * the line and the reason.
 */
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

    @jakarta.inject.Inject
    DrillCatalog(@org.eclipse.microprofile.config.inject.ConfigProperty(name = "acceltriage.drills.dir") Optional<String> dir) {
        this(load(dir.map(String::strip).filter(d -> !d.isEmpty()).orElse(null)));
    }

    DrillCatalog() {
        this(load(null));
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

    static Map<String, Drill> load(String dir) {
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
        if (dir == null) return out;
        Path folder = Path.of(dir);
        if (!Files.isDirectory(folder)) {
            throw new DataFiles.InvalidDataFile(dir + ": ACCELTRIAGE_DRILLS_DIR (acceltriage.drills.dir) is not a folder; make it one holding"
                    + " NAME.yaml drill files, or unset it");
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(folder, "*.yaml")) {
            ds.forEach(files::add);
            files.sort(null);
            for (Path file : files) {
                String name = file.getFileName().toString().replaceFirst("\\.yaml$", "");
                if (!NAME.matcher(name).matches()) {
                    throw new DataFiles.InvalidDataFile(file + ":1: a drill's file name is its name: lowercase letters, digits and '-'"
                            + " (e.g. xid79-rack-a.yaml)");
                }
                out.put(name, parse(name, file.toString(), Files.readAllBytes(file)));
            }
        } catch (IOException e) {
            throw new DataFiles.InvalidDataFile(dir + ": cannot read the drills folder: " + e.getMessage());
        }
        return out;
    }

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    static Drill parse(String name, String path, byte[] content) {
        String text = new String(content, java.nio.charset.StandardCharsets.UTF_8);
        File f = DataFiles.parse(path, content, File.class);
        if (!"acceltriage.io/v1".equals(f.apiVersion()) || !"Drill".equals(f.kind())) {
            throw new DataFiles.InvalidDataFile(path + ":" + line(text, "apiVersion") + ": write apiVersion: acceltriage.io/v1 and kind: Drill");
        }
        if (f.faults() == null || f.faults().isEmpty()) {
            throw new DataFiles.InvalidDataFile(path + ":" + line(text, "faults") + ": faults is required: at least one fault, e.g."
                    + " {kind: xid, node: gpu-h100-04, xid: 79}");
        }
        if (f.expect() == null || f.expect().isEmpty() || !Policy.OBJECTIVE_STAGES.containsAll(f.expect())) {
            throw new DataFiles.InvalidDataFile(path + ":" + line(text, "expect") + ": expect must list stages of " + Policy.OBJECTIVE_STAGES
                    + ", got " + f.expect());
        }
        Duration timeout;
        try {
            timeout = Durations.parse(f.timeout() == null ? "120s" : f.timeout());
        } catch (IllegalArgumentException e) {
            throw new DataFiles.InvalidDataFile(path + ":" + line(text, "timeout") + ": timeout: " + e.getMessage());
        }
        ShadowAlert alert = f.alert();
        if (alert != null) {
            if (alert.labels() == null || alert.labels().get("alertname") == null || alert.labels().get("node") == null) {
                throw new DataFiles.InvalidDataFile(path + ":" + line(text, "alert") + ": alert.labels needs at least alertname and node, e.g."
                        + " {alertname: GpuXidDeviceFault, severity: critical, node: gpu-h100-04, gpu: \"3\", xid: \"79\"}");
            }
            for (String own : List.of(ForcedDryRun.DRILL_LABEL, ShadowOverlay.RUN_LABEL)) {
                if (alert.labels().containsKey(own)) {
                    throw new DataFiles.InvalidDataFile(path + ":" + line(text, own) + ": alert.labels." + own
                            + " is set by the drill itself; remove it");
                }
            }
            alert = new ShadowAlert(Map.copyOf(alert.labels()), alert.annotations() == null ? Map.of() : Map.copyOf(alert.annotations()));
        }
        return new Drill(name, f.description(), List.copyOf(f.faults()), List.copyOf(f.expect()), timeout, alert);
    }

    /** The 1-based line where {@code key} is first written as a key, else 1: an error points at what to fix. */
    static int line(String text, String key) {
        String[] lines = text.split("\n", -1);
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("^\\s*(-\\s*)?" + java.util.regex.Pattern.quote(key) + "\\s*:");
        for (int i = 0; i < lines.length; i++) {
            if (p.matcher(lines[i]).find()) return i + 1;
        }
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains(key + ":")) return i + 1;
        }
        return 1;
    }

    /**
     * The drill moved to {@code node}: its faults on the drill's node and its alert's labels naming it now name
     * {@code node}, and so does the alert's prose. The drill's node is its alert's {@code node} label, else its
     * first fault's node.
     */
    public static Drill on(Drill d, String node) {
        String from = d.alert() != null ? d.alert().labels().get("node") : d.faults().stream().map(Fault::node)
                .filter(java.util.Objects::nonNull).findFirst().orElse(null);
        if (from == null || from.equals(node)) return d;
        List<Fault> faults = d.faults().stream()
                .map(f -> from.equals(f.node()) ? new Fault(f.kind(), node, f.gpu(), f.xid(), f.pod()) : f).toList();
        ShadowAlert alert = null;
        if (d.alert() != null) {
            Map<String, String> labels = new LinkedHashMap<>();
            d.alert().labels().forEach((k, v) -> labels.put(k, from.equals(v) ? node : v));
            Map<String, String> annotations = new LinkedHashMap<>();
            d.alert().annotations().forEach((k, v) -> annotations.put(k, v == null ? null : v.replace(from, node)));
            alert = new ShadowAlert(Map.copyOf(labels), Map.copyOf(annotations));
        }
        return new Drill(d.name(), d.description() == null ? null : d.description().replace(from, node), faults, d.expect(), d.timeout(),
                alert);
    }
}
