package io.acceltriage.scenario;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The scenario format is a contract: an expectation naming repair-node means reboot-node, as it did before the rename. */
class FormerActionNamesTest {

    @Test
    void anEntryNamingRepairNodeMatchesARebootNodeProposal() {
        assertTrue(Replay.matches("reboot-node:gpu-a-03", "repair-node:gpu-a-03"));
        assertTrue(Replay.matches("reboot-node:gpu-a-03", "repair-node"));
        assertTrue(Replay.matches("reboot-node:gpu-a-03", "reboot-node"));
        assertFalse(Replay.matches("reboot-node:gpu-a-03", "repair-node:gpu-a-04"));
        assertFalse(Replay.matches("replace-node:gpu-a-03", "repair-node"), "a replacement is not a reboot");
    }
}
