package io.acceltriage.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario files as YAML dumpers write them. */
class ScenarioLoaderTest {

    @Test
    void anAliasedValueReachesTheObjectsAsACopyOfItsAnchor(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("aliases.yaml");
        Files.writeString(f, """
                apiVersion: acceltriage.io/v1
                kind: Scenario
                metadata: {name: aliases}
                spec:
                  alert: {status: firing, labels: {alertname: X}, startsAt: "2026-11-30T10:00:00Z"}
                  objects:
                  - apiVersion: v1
                    kind: Pod
                    metadata:
                      name: a
                      labels: &labels
                        app: serve
                  - apiVersion: v1
                    kind: Pod
                    metadata:
                      name: b
                      labels: *labels
                  expect: {family: none}
                """);
        Scenario s = ScenarioLoader.load(f);
        List<?> objects = s.spec().objects();
        assertEquals(Map.of("app", "serve"), labelsOf(objects.get(1)));
        assertEquals(labelsOf(objects.get(0)), labelsOf(objects.get(1)));
    }

    @SuppressWarnings("unchecked")
    private static Object labelsOf(Object object) {
        var json = io.acceltriage.config.DataFiles.YAML.convertValue(object, Map.class);
        return ((Map<String, Object>) json.get("metadata")).get("labels");
    }
}
