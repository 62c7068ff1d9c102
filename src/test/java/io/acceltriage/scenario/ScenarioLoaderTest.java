package io.acceltriage.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void aValidationNeedsANodeOfTheObjectsAndADcgmResultElseTheFileIsNamed(@TempDir Path dir) throws Exception {
        String scenario = """
                apiVersion: acceltriage.io/v1
                kind: Scenario
                metadata: {name: validation}
                spec:
                  alert: {status: firing, labels: {alertname: X}, startsAt: "2026-11-30T10:00:00Z"}
                  objects:
                  - {apiVersion: v1, kind: Node, metadata: {name: n1}}
                  validation:
                    node: NODE
                    diag: {"DCGM Diagnostic": {test_categories: [{category: Hardware, tests: [{name: memory,
                      results: [{entity_group: GPU, entity_id: 0, status: STATUS}]}]}]}}
                  expect: {family: none}
                """;
        Path good = dir.resolve("good.yaml");
        Files.writeString(good, scenario.replace("NODE", "n1").replace("STATUS", "Fail"));
        assertEquals("n1", ScenarioLoader.load(good).spec().validation().node());
        Path elsewhere = dir.resolve("elsewhere.yaml");
        Files.writeString(elsewhere, scenario.replace("NODE", "n2").replace("STATUS", "Pass"));
        String why = assertThrows(io.acceltriage.config.DataFiles.InvalidDataFile.class, () -> ScenarioLoader.load(elsewhere)).getMessage();
        assertTrue(why.contains("elsewhere.yaml") && why.contains("spec.validation.node: no Node n2"), why);
        Path notDcgm = dir.resolve("not-dcgm.yaml");
        Files.writeString(notDcgm, scenario.replace("NODE", "n1").replace("DCGM Diagnostic", "Something else"));
        why = assertThrows(io.acceltriage.config.DataFiles.InvalidDataFile.class, () -> ScenarioLoader.load(notDcgm)).getMessage();
        assertTrue(why.contains("not-dcgm.yaml") && why.contains("spec.validation.diag"), why);
    }

    @SuppressWarnings("unchecked")
    private static Object labelsOf(Object object) {
        var json = io.acceltriage.config.DataFiles.YAML.convertValue(object, Map.class);
        return ((Map<String, Object>) json.get("metadata")).get("labels");
    }
}
