package io.acceltriage.scenario;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.policy.Policy;
import io.acceltriage.triage.ResponderFactory;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replays the whole scenario corpus through the production responder. The scenarios were written
 * from what real systems emit, independently of the classifier; every one must pass.
 */
@QuarkusTest
class ScenarioCorpusTest {

    @Inject
    ResponderFactory factory;

    @Inject
    Policy policy;

    @Test
    void everyScenarioOfTheCorpusGetsTheFamilyAndTheMitigationsItExpects() throws Exception {
        Replay replay = new Replay(factory, policy);
        List<Path> files = ScenarioLoader.expand(List.of(Path.of("src/test/resources/scenarios")));
        assertTrue(files.size() >= 43, "the corpus has " + files.size() + " scenarios");
        List<String> failures = new ArrayList<>();
        for (Path f : files) {
            ReplayResult r = replay.run(f, ScenarioLoader.load(f), null);
            if (!r.passed()) {
                failures.add(r.name() + ": " + String.join("; ", r.problems()) + "\n    " + String.join("\n    ", r.explanation()));
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + files.size() + " scenarios failed:\n" + String.join("\n", failures));
    }

    @Test
    void aScenarioWithAnUnknownFieldIsRejectedWithItsFileAndLine(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path f = dir.resolve("typo.yaml");
        java.nio.file.Files.writeString(f, """
                apiVersion: acceltriage.io/v1
                kind: Scenario
                metadata: {name: typo}
                spec:
                  alert: {status: firing, labels: {alertname: X}, startsAt: "2026-11-30T10:00:00Z"}
                  expectt: {family: none}
                """);
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> ScenarioLoader.load(f));
        assertTrue(e.getMessage().contains("typo.yaml:") && e.getMessage().contains("unknown key 'expectt'"), e.getMessage());
    }
}
