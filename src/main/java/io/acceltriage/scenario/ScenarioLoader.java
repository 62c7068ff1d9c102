package io.acceltriage.scenario;

import io.acceltriage.config.DataFiles;
import io.acceltriage.diagnosis.Family;
import io.acceltriage.policy.ActionKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Reads scenario files and folders, checking each against the format so a typo never passes silently. */
public final class ScenarioLoader {

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");

    private ScenarioLoader() {}

    /** Every *.yaml/*.yml under the given files and folders, in path order. */
    public static List<Path> expand(List<Path> paths) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(f -> Files.isRegularFile(f) && (f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")))
                            .sorted().forEach(out::add);
                }
            } else if (Files.isRegularFile(p)) {
                out.add(p);
            } else {
                throw new IOException(p + ": no such file or folder");
            }
        }
        return out;
    }

    public static Scenario load(Path file) throws IOException {
        Scenario s = DataFiles.parse(file.toString(), withAliasesExpanded(Files.readAllBytes(file)), Scenario.class);
        String at = file.toString();
        require(at, "acceltriage.io/v1".equals(s.apiVersion()), "apiVersion must be acceltriage.io/v1");
        require(at, "Scenario".equals(s.kind()), "kind must be Scenario");
        require(at, s.metadata() != null && s.metadata().name() != null && NAME.matcher(s.metadata().name()).matches(),
                "metadata.name is required and must match [a-z0-9-]");
        require(at, s.spec() != null, "spec is required");
        var spec = s.spec();
        require(at, spec.alert() != null || (spec.alerts() != null && !spec.alerts().isEmpty()) || spec.ask() != null,
                "spec needs a trigger: alert, alerts or ask");
        require(at, spec.expect() != null && spec.expect().family() != null, "spec.expect.family is required");
        try {
            Family.parse(spec.expect().family());
        } catch (IllegalArgumentException e) {
            throw new DataFiles.InvalidDataFile(at + ": spec.expect.family: " + e.getMessage());
        }
        for (List<String> entries : new ArrayList<>(java.util.Arrays.asList(spec.expect().actions(), spec.expect().forbidden(),
                spec.expect().atCheckpoint(), spec.expect().refused() == null ? null : new ArrayList<>(spec.expect().refused().keySet())))) {
            if (entries == null) continue;
            for (String entry : entries) {
                String kind = entry.contains(":") ? entry.substring(0, entry.indexOf(':')) : entry;
                try {
                    ActionKind.parse(kind);
                } catch (IllegalArgumentException e) {
                    throw new DataFiles.InvalidDataFile(at + ": spec.expect: '" + entry + "': " + e.getMessage());
                }
            }
        }
        List<Scenario.PastFault> history = spec.history() == null ? List.of() : spec.history();
        for (int i = 0; i < history.size(); i++) {
            Scenario.PastFault f = history.get(i);
            String where = "spec.history[" + i + "]";
            require(at, f != null && f.node() != null && !f.node().isBlank() && f.gpu() != null && !f.gpu().isBlank(),
                    where + ": node and gpu are required, e.g. {node: gpu-a-03, gpu: \"2\", xid: 79, ago: 3h}");
            require(at, f.xid() != null && f.xid() > 0, where + ".xid: the XID code as a positive integer is required");
            try {
                java.time.Duration d = io.acceltriage.policy.Durations.parse(f.ago());
                require(at, !d.isNegative(), where + ".ago must not be negative");
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new DataFiles.InvalidDataFile(at + ": " + where + ".ago: how long before the incident, e.g. 3h"
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            }
        }
        Scenario.Validation v = spec.validation();
        if (v != null) {
            require(at, v.node() != null && !v.node().isBlank() && v.diag() != null, "spec.validation: node and diag are required,"
                    + " e.g. {node: gpu-a-03, diag: <what dcgmi diag -j printed>}");
            require(at, (spec.objects() == null ? List.<java.util.Map<String, Object>>of() : spec.objects()).stream()
                    .anyMatch(o -> o != null && "Node".equals(o.get("kind")) && o.get("metadata") instanceof java.util.Map<?, ?> m
                            && v.node().equals(m.get("name"))),
                    "spec.validation.node: no Node " + v.node() + " among spec.objects");
            require(at, io.acceltriage.action.ValidateNode.markedWith(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata()
                    .withName(v.node()).endMetadata().build(),
                    io.acceltriage.store.Json.write(v.diag()), java.time.Instant.EPOCH).isPresent(),
                    "spec.validation.diag: not a dcgmi diag -j result (no \"DCGM Diagnostic\" or \"DCGM GPU Diagnostic\" with test_categories)");
        }
        return s;
    }

    /**
     * YAML anchors and aliases ({@code &id1} … {@code *id1}, as PyYAML and other dumpers write shared
     * values) are valid YAML, but Jackson's YAML parser hands an alias over as the anchor's name. A
     * document that uses them is expanded first (aliases replaced by copies of their anchored value),
     * so the objects reach the API server whole. Documents without aliases are read as they are, with
     * their own line numbers in any error.
     */
    static byte[] withAliasesExpanded(byte[] content) {
        String text = new String(content, java.nio.charset.StandardCharsets.UTF_8);
        if (!ALIAS.matcher(text).find()) return content;
        org.yaml.snakeyaml.LoaderOptions loading = new org.yaml.snakeyaml.LoaderOptions();
        loading.setMaxAliasesForCollections(10_000);
        loading.setCodePointLimit(Math.max(loading.getCodePointLimit(), text.length() + 1));
        Object tree = new org.yaml.snakeyaml.Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(loading)).load(text);
        org.yaml.snakeyaml.DumperOptions dumping = new org.yaml.snakeyaml.DumperOptions();
        dumping.setDereferenceAliases(true);
        dumping.setDefaultFlowStyle(org.yaml.snakeyaml.DumperOptions.FlowStyle.BLOCK);
        dumping.setWidth(Integer.MAX_VALUE);
        dumping.setSplitLines(false);
        return new org.yaml.snakeyaml.Yaml(dumping).dump(tree).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** An alias node: {@code *name} where a value starts (after a key, a dash or a flow separator). */
    private static final java.util.regex.Pattern ALIAS = java.util.regex.Pattern.compile("(?m)(?:[:\\-\\[,]\\s+|^\\s*)\\*[A-Za-z0-9_-]+\\s*$|[:\\-\\[,]\\s+\\*[A-Za-z0-9_-]+\\s*[,\\]}]");

    private static void require(String file, boolean ok, String reason) {
        if (!ok) throw new DataFiles.InvalidDataFile(file + ": " + reason);
    }
}
