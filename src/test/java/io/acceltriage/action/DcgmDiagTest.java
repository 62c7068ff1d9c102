package io.acceltriage.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The two shapes {@code dcgmi diag -j} writes (DCGM 3's "DCGM GPU Diagnostic", DCGM 4's "DCGM Diagnostic"), read from a pod log. */
class DcgmDiagTest {

    @Test
    void aDcgm4FailureKeepsEveryFailingTestAndItsWarningAmidTheLinesAroundIt() {
        String log = """
                Started host engine version 4.2.3 using port number: 5555
                {"DCGM Diagnostic": {"test_categories": [
                  {"category": "Deployment", "tests": [{"name": "software", "results": [
                    {"entity_group": "GPU", "entity_id": 0, "status": "Pass"}], "test_summary": {"status": "Pass"}}]},
                  {"category": "Hardware", "tests": [{"name": "memory", "results": [
                    {"entity_group": "GPU", "entity_id": 0, "status": "Pass"},
                    {"entity_group": "GPU", "entity_id": 3, "status": "Fail", "warnings": [
                      {"error_category": 6, "error_id": 9, "error_severity": 2,
                       "warning": "A memory mismatch was detected on GPU 3, but no error was reported by CUDA or NVML."}]}],
                    "test_summary": {"status": "Fail"}}]}]},
                 "metadata": {"version": "4.2.3"}}
                rc=226
                """;
        DcgmDiag d = DcgmDiag.parse(log).orElseThrow();
        assertFalse(d.passed());
        assertEquals(2, d.tests());
        assertEquals("4.2.3", d.version());
        assertEquals("memory (Hardware) failed on GPU 3: A memory mismatch was detected on GPU 3, but no error was reported by CUDA or NVML.",
                d.words());
    }

    @Test
    void aDcgm3DocumentIsReadByItsOwnRootAndAPassIsAPass() {
        String json = """
                {"DCGM GPU Diagnostic": {"test_categories": [{"category": "Integration", "tests": [{"name": "PCIe",
                  "results": [{"gpu_id": 0, "status": "Pass"}, {"gpu_id": 1, "status": "Skip"}]}]}]},
                 "version": "3.3.5"}
                """;
        DcgmDiag d = DcgmDiag.parse(json).orElseThrow();
        assertTrue(d.passed());
        assertEquals(1, d.tests());
    }

    @Test
    void aLogWithoutADiagnosticIsNoResultNeverAPass() {
        assertTrue(DcgmDiag.parse("Error: unable to establish a connection to the host engine\n").isEmpty());
        assertTrue(DcgmDiag.parse("{\"something\": \"else\"}").isEmpty());
        assertTrue(DcgmDiag.parse("{\"DCGM Diagnostic\": {\"test_categories\": [").isEmpty());
    }
}
