package io.acceltriage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code drill} through the packaged jar on the embedded default: the XID 79 training-node drill prints
 * its stage table and exits 0 under the shipped objectives; under a policy whose mitigation objective
 * cannot be met (1 ms) it exits 1, and the failure is audited and told like an escalation.
 */
class DrillCommandIT {

    @Test
    void aDrillOnTheEmbeddedDefaultPrintsItsStageTableAndExitsZero() throws Exception {
        Path dir = Files.createTempDirectory("drill-ok");
        CommandLineIT.Run r = CommandLineIT.run(dir, List.of("ACCELTRIAGE_DATA_DIR=" + dir.resolve("data")), "drill", "xid79-training-node");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().matches("(?s).*stage\\s+took\\s+objective\\s+bound\\s+result.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\ndecide\\s+\\S+\\s+decided\\s+1m\\s+met.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\nmitigate\\s+\\S+\\s+device-mitigated\\s+2m\\s+met.*"), r.out());
        assertTrue(r.out().contains("drill passed"), r.out());
        assertTrue(!(r.out() + r.err()).contains("generated an admin token"), "the loopback run's token is not printed: " + r.out());
    }

    @Test
    void anObjectiveNoResponderCanMeetFailsTheDrillWithExitOneAndIsAudited() throws Exception {
        Path dir = Files.createTempDirectory("drill-breached");
        String policy = Files.readString(Path.of("policies/default.yaml"));
        String impossible = policy.replaceFirst("(name: device-mitigated,[^}]*within: )2m", "$11ms");
        assertTrue(!impossible.equals(policy), "the shipped policy has the device-mitigated objective");
        Path file = dir.resolve("impossible.yaml");
        Files.writeString(file, impossible);
        List<String> env = List.of("ACCELTRIAGE_DATA_DIR=" + dir.resolve("data"), "ACCELTRIAGE_POLICY_FILE=" + file);
        CommandLineIT.Run r = CommandLineIT.run(dir, env, "drill", "xid79-training-node");
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.out().matches("(?s).*\\nmitigate\\s+\\S+\\s+device-mitigated\\s+1ms\\s+breached.*"), r.out());
        assertTrue(r.out().contains("drill FAILED: mitigate took"), r.out());

        CommandLineIT.Run export = CommandLineIT.run(dir, env, "audit", "export");
        assertEquals(0, export.exit(), export.err());
        assertTrue(export.out().contains("\"kind\":\"drill.finished\"") && export.out().contains("\"passed\":false"), export.out());
        assertTrue(export.out().contains("\"event\":\"drill_failed\""), "told through notify: " + export.out());

        CommandLineIT.Run unknown = CommandLineIT.run(dir, env, "drill", "xid80-nowhere");
        assertEquals(2, unknown.exit(), unknown.out() + unknown.err());
        assertTrue(unknown.err().contains("xid79-training-node"), unknown.err());
    }
}
