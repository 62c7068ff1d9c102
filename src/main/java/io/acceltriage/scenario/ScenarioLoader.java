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
        Scenario s = DataFiles.parse(file.toString(), Files.readAllBytes(file), Scenario.class);
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
        for (List<String> entries : new ArrayList<>(java.util.Arrays.asList(spec.expect().actions(), spec.expect().forbidden()))) {
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
        return s;
    }

    private static void require(String file, boolean ok, String reason) {
        if (!ok) throw new DataFiles.InvalidDataFile(file + ": " + reason);
    }
}
