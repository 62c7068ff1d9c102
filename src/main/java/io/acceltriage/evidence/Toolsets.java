package io.acceltriage.evidence;

import io.acceltriage.config.DataFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The declarative evidence tools of {@code tools/}, loaded and checked at start. A bad file stops the
 * service with the file, the line and the reason.
 */
public final class Toolsets {

    static final List<String> BUNDLED = List.of("dcgm.yaml", "tpu.yaml", "amd.yaml", "serving.yaml", "training.yaml");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Pattern RESOURCE = Pattern.compile("[a-z0-9]([a-z0-9.-]*[a-z0-9])?/[a-z0-9]([a-z0-9._-]*[a-z0-9])?");
    private static final Set<String> FAMILIES = Set.of("device", "infrastructure", "application");

    private final List<Toolset> toolsets;
    private final Map<String, Toolset.Tool> byMetric;
    private final Set<String> tenantMetrics = new HashSet<>();

    Toolsets(List<Toolset> toolsets) {
        this.toolsets = List.copyOf(toolsets);
        Map<String, Toolset.Tool> m = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        for (Toolset ts : toolsets) {
            for (Toolset.Tool t : ts.tools()) {
                if (!names.add(t.name())) {
                    throw new DataFiles.InvalidDataFile("tools/" + ts.name() + ": tool '" + t.name() + "' is defined twice");
                }
                m.putIfAbsent(t.metric(), t);
                if (ts.tenant()) tenantMetrics.add(t.metric());
                if (t.formerly() != null) {
                    for (String old : t.formerly()) {
                        m.putIfAbsent(old, t);
                        if (ts.tenant()) tenantMetrics.add(old);
                    }
                }
            }
        }
        this.byMetric = m;
    }

    /** Every *.yaml of the folder when it exists, else the toolsets bundled with the build. */
    public static Toolsets load(String dir) {
        List<Toolset> out = new ArrayList<>();
        Path folder = Path.of(dir);
        if (Files.isDirectory(folder)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*.yaml")) {
                List<Path> sorted = new ArrayList<>();
                files.forEach(sorted::add);
                sorted.sort(null);
                for (Path f : sorted) {
                    out.add(validated(f.toString(), DataFiles.parse(f.toString(), Files.readAllBytes(f), Toolset.class)));
                }
            } catch (IOException e) {
                throw new DataFiles.InvalidDataFile(dir + ": cannot read the tools folder: " + e.getMessage());
            }
        } else {
            org.jboss.logging.Logger.getLogger(Toolsets.class).warnf(
                    "tools: %s is not a folder here (working folder %s); using the toolsets bundled with the build", dir,
                    Path.of("").toAbsolutePath());
            for (String f : BUNDLED) {
                out.add(validated("tools/" + f, DataFiles.resource("tools/" + f, Toolset.class)));
            }
        }
        return new Toolsets(out);
    }

    static Toolset validated(String file, Toolset ts) {
        require(file, "acceltriage.io/v1".equals(ts.apiVersion()), "apiVersion must be acceltriage.io/v1, got '" + ts.apiVersion() + "'");
        require(file, "Toolset".equals(ts.kind()), "kind must be Toolset, got '" + ts.kind() + "'");
        require(file, ts.name() != null && NAME.matcher(ts.name()).matches(), "name must match [a-z][a-z0-9_]*");
        require(file, ts.tools() != null && !ts.tools().isEmpty(), "a toolset needs at least one tool");
        require(file, ts.trust() == null || "tenant".equals(ts.trust()) || "platform".equals(ts.trust()),
                "trust must be platform (a device exporter's series) or tenant (the workload's own), got '" + ts.trust() + "'");
        require(file, ts.workloads() == null || "serving".equals(ts.workloads()) || "training".equals(ts.workloads()),
                "workloads must be serving or training (which workloads serve the toolset's series), got '" + ts.workloads() + "'");
        require(file, ts.resource() == null || RESOURCE.matcher(ts.resource()).matches(),
                "resource must be an extended resource name such as nvidia.com/gpu, got '" + ts.resource() + "'");
        for (Toolset.Tool t : ts.tools()) {
            String at = "tool '" + t.name() + "'";
            require(file, t.name() != null && NAME.matcher(t.name()).matches(), "tool name '" + t.name() + "' must match [a-z][a-z0-9_]*");
            require(file, t.description() != null && t.description().length() >= 10, at + " needs a description that tells when to call it");
            require(file, t.metric() != null && !t.metric().isBlank(), at + " needs the metric it reads");
            require(file, t.query() != null && !t.query().isBlank(), at + " needs a PromQL query template");
            Set<String> declared = new HashSet<>();
            if (t.parameters() != null) {
                for (Toolset.Parameter p : t.parameters()) {
                    require(file, p.name() != null && p.type() != null, at + ": every parameter needs a name and a type");
                    declared.add(p.name());
                }
            }
            Matcher m = PLACEHOLDER.matcher(t.query());
            while (m.find()) {
                require(file, declared.contains(m.group(1)), at + " uses {{" + m.group(1) + "}} but declares no such parameter");
            }
            if (t.impact() != null) {
                require(file, t.impact().measure() != null && Toolset.Impact.MEASURES.contains(t.impact().measure()),
                        at + ": impact.measure must be one of " + new java.util.TreeSet<>(Toolset.Impact.MEASURES) + ", got '"
                                + t.impact().measure() + "'");
                require(file, declared.stream().allMatch(d -> d.equals("namespace") || d.equals("window")),
                        at + ": an impact tool is filled with the workload's namespace and the window only, not " + declared);
                require(file, declared.contains("namespace"), at + ": an impact tool reads a workload's series: it needs a namespace parameter");
                require(file, t.impact().atFaultOnly() || declared.contains("window"),
                        at + ": impact." + t.impact().measure() + " compares a window before with one after the fault: the query needs {{window}}");
            }
            Toolset.Fault f = t.fault();
            if (f != null) {
                require(file, f.when() != null, at + ": fault.when is required (changed, increased, above, bits, rate, idle)");
                if (f.catalogue() != null) {
                    require(file, "xid".equals(f.catalogue()) || "xid-count".equals(f.catalogue()),
                            at + ": fault.catalogue must be xid or xid-count, got '" + f.catalogue() + "'");
                } else {
                    require(file, f.family() != null && FAMILIES.contains(f.family()), at + ": fault.family must be device, infrastructure or application");
                    require(file, f.weight() != null && f.weight() > 0 && f.weight() <= 1, at + ": fault.weight must be in (0, 1]");
                    require(file, f.cause() != null, at + ": fault.cause is required");
                }
                boolean needsThreshold = f.when() == Toolset.Condition.ABOVE || f.when() == Toolset.Condition.BITS
                        || f.when() == Toolset.Condition.RATE
                        || "xid-count".equals(f.catalogue());
                require(file, !needsThreshold || f.threshold() != null, at + ": fault.when " + f.when().name().toLowerCase() + " needs a threshold");
            }
        }
        return ts;
    }

    private static void require(String file, boolean ok, String reason) {
        if (!ok) {
            throw new DataFiles.InvalidDataFile(file + ": " + reason);
        }
    }

    public List<Toolset> all() {
        return toolsets;
    }

    /** True when a fault of another tool adds this metric to its own (sumWith). */
    public boolean isSummand(String metric) {
        return toolsets.stream().flatMap(ts -> ts.tools().stream())
                .anyMatch(t -> t.fault() != null && metric.equals(t.fault().sumWith()));
    }

    /** True when a tenant toolset reads this metric: the workload serves it, whoever scrapes it. */
    public boolean servedByTenant(String metric) {
        return tenantMetrics.contains(metric);
    }

    /** The tools that say what a fault did to a workload (the {@code impact} of serving and training toolsets). */
    public List<Toolset.Tool> impactTools() {
        return toolsets.stream().flatMap(ts -> ts.tools().stream()).filter(t -> t.impact() != null).toList();
    }

    public Optional<Toolset.Tool> forMetric(String metric) {
        return Optional.ofNullable(byMetric.get(metric));
    }
}
