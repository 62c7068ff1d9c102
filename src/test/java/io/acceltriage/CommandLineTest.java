package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.Test;

/** The packaged command line as an operator runs it: output and exit status as the scenario format says. */
@QuarkusMainTest
class CommandLineTest {

    @Test
    @Launch({"eval", "src/test/resources/scenarios/xid79-serving-node.yaml", "src/test/resources/scenarios/cuda-oom-finetune.yaml",
            "src/test/resources/scenarios/device-plugin-crashloop.yaml"})
    void evalReplaysTheExamplesAndEndsWithTheCount(LaunchResult result) {
        String out = result.getOutput();
        assertTrue(out.contains("PASS xid79-serving-node"), out);
        assertTrue(out.contains("PASS cuda-oom-finetune"), out);
        assertTrue(out.contains("PASS device-plugin-crashloop"), out);
        String[] lines = out.strip().split("\n");
        assertEquals("3 passed, 0 failed", lines[lines.length - 1].strip(), out);
        assertEquals(0, result.exitCode());
    }

    @Test
    @Launch(value = {"eval", "src/test/resources/no-such-folder"}, exitCode = 2)
    void evalOfAMissingPathSaysSoAndFails(LaunchResult result) {
        assertTrue((result.getOutput() + result.getErrorOutput()).contains("no such file or folder"),
                result.getOutput() + result.getErrorOutput());
    }
}
