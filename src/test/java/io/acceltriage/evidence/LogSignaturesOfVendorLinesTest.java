package io.acceltriage.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shipped log signatures against lines as the vendors print them (the source of each in the knowledge file), and
 * against their look-alikes: a class of message is recognised, not one incident's string.
 */
class LogSignaturesOfVendorLinesTest {

    static final SignatureCatalogue SHIPPED = SignatureCatalogue.load();

    static List<String> ids(String line, PodRole role) {
        return SHIPPED.match(line, role).stream().map(SignatureCatalogue.Signature::id).toList();
    }

    static Stream<Arguments> vendorLines() {
        return Stream.of(
                Arguments.of("exec-format-error", PodRole.WORKLOAD, "exec /node-problem-detector: exec format error"),
                Arguments.of("exec-format-error", PodRole.WORKLOAD, "/bin/sh: 1: /app/server: cannot execute binary file: Exec format error"),
                Arguments.of("nccl-invalid-usage", PodRole.WORKLOAD, "h100-jax-02:1:1 [0] misc/socket.cc:484 NCCL WARN Bootstrap : no socket interface found"),
                Arguments.of("nccl-invalid-usage", PodRole.WORKLOAD, "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library."),
                Arguments.of("nccl-invalid-usage", PodRole.WORKLOAD, "Failed to get NCCL unique id: NCCL operation ncclGetUniqueId(&id) failed: invalid usage"),
                Arguments.of("nvml-lost-device-access", PodRole.WORKLOAD, "Failed to initialize NVML: Unknown Error"),
                Arguments.of("driver-not-loaded", PodRole.WORKLOAD, "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown"),
                Arguments.of("driver-not-loaded", PodRole.WORKLOAD, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."),
                Arguments.of("driver-module-rejected", PodRole.DRIVER, "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service"),
                Arguments.of("driver-module-rejected", PodRole.DRIVER, "modprobe: ERROR: could not insert 'nvidia_uvm': Required key not available"),
                Arguments.of("health-check-critical", PodRole.OPERAND,
                        "time=2026-12-02T09:40:05Z level=WARN msg=\"check failed\" check=gpu_count severity=CRITICAL gpu_count=3 expected_gpu_count=4"),
                Arguments.of("health-check-critical", PodRole.OPERAND,
                        "{\"node\":\"n\",\"results\":[{\"check_id\":\"nvlink_active\",\"severity\":\"CRITICAL\",\"entity\":\"GPU 5\"}]}"),
                Arguments.of("health-check-critical", PodRole.OPERAND, "msg=\"check failed\" check=gpu_xid_79 severity=CRITICAL gpu=2"),
                Arguments.of("agent-host-limit", PodRole.DEVICE_PLUGIN,
                        "E1202 15:25:01.102871       1 main.go:132] error starting plugins: failed to create FS watcher: too many open files"),
                Arguments.of("agent-host-limit", PodRole.DEVICE_PLUGIN, "Failed to create FS watcher: inotify_init: too many open files"),
                Arguments.of("agent-host-limit", PodRole.EXPORTER, "failed to create fsnotify watcher: too many open files"),
                Arguments.of("gpu-init-failed-on-node", PodRole.DRIVER, "No devices were found"),
                Arguments.of("gpu-init-failed-on-node", PodRole.OPERAND, "Failed to allocate device vector A (error code initialization error)!"),
                Arguments.of("gpu-init-failed-on-node", PodRole.DRIVER,
                        "NVRM: The NVIDIA GPU 0000:1b:00.0 (PCI ID: 10de:2901) installed in this system requires use of the NVIDIA open kernel modules."),
                Arguments.of("gpu-init-failed-on-node", PodRole.DRIVER, "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:884)"),
                Arguments.of("sriov-no-virtual-functions", PodRole.DEVICE_PLUGIN,
                        "I1203 10:02:11.204518       1 manager.go:140] initServers(): selector index 0 will register 0 devices"),
                Arguments.of("sriov-no-virtual-functions", PodRole.DEVICE_PLUGIN,
                        "I1203 10:02:11.204533       1 manager.go:144] no devices in device pool, skipping creating resource server for roce_vf"));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("vendorLines")
    void aVendorsLineIsKnownByItsSignature(String id, PodRole role, String line) {
        assertTrue(ids(line, role).contains(id), line + " → " + ids(line, role));
    }

    @Test
    void nvmlUnknownErrorIsALostDeviceAccessNotADriverLibraryMismatch() {
        assertEquals(List.of("nvml-lost-device-access"), ids("Failed to initialize NVML: Unknown Error", PodRole.WORKLOAD));
        assertTrue(ids("Failed to initialize NVML: Driver/library version mismatch", PodRole.WORKLOAD).contains("nvml-mismatch"));
    }

    @Test
    void anExecFormatErrorIsTheWorkloadsImageInAWorkloadAndThePlatformsInANodeAgent() {
        assertEquals(List.of("exec-format-error"), ids("exec /usr/local/bin/python3: exec format error", PodRole.WORKLOAD));
        assertTrue(ids("exec /usr/bin/nvidia-device-plugin: exec format error", PodRole.DEVICE_PLUGIN).contains("agent-exec-format-error"));
    }

    @Test
    void aHealthVerdictPrintedByAWorkloadIsNoVerdict() {
        assertFalse(ids("check=gpu_count severity=CRITICAL", PodRole.WORKLOAD).contains("health-check-critical"));
    }

    @Test
    void aPassingOrNonDeviceHealthCheckIsNoDeviceVerdict() {
        assertFalse(ids("check=gpu_count severity=PASS", PodRole.OPERAND).contains("health-check-critical"));
        assertFalse(ids("{\"check_id\":\"gpu_xid_48\",\"severity\":\"PASS\"},{\"check_id\":\"disk_space\",\"severity\":\"CRITICAL\"}",
                PodRole.OPERAND).contains("health-check-critical"));
    }

    @Test
    void aNodeAgentHittingAHostLimitIsNotARegistrationARestartClears() {
        List<String> got = ids("error starting plugins: failed to create FS watcher: too many open files", PodRole.DEVICE_PLUGIN);
        assertFalse(got.contains("device-plugin-registration"), got.toString());
        assertTrue(ids("error starting plugins: failed to register device plugin: rpc error", PodRole.DEVICE_PLUGIN)
                .contains("device-plugin-registration"));
        // The same words in a workload's log are its own (its own file descriptors), not the node's agent.
        assertFalse(ids("OSError: [Errno 24] Too many open files", PodRole.WORKLOAD).contains("agent-host-limit"));
    }

    @Test
    void aLogPrintingAnExportersFaultSeriesIsReadAsAClaimAboutTheDevice() {
        assertTrue(ids("DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"0\",UUID=\"GPU-30be\",Hostname=\"a100-shared-07\"} 1", PodRole.WORKLOAD)
                .contains("exporter-series-in-log"));
        assertTrue(ids("gpu_ecc_uncorrect_umc{gpu_id=\"3\",hostname=\"mi300x-01\"} 4", PodRole.WORKLOAD).contains("exporter-series-in-log"));
        // A healthy value, or the metric's name in prose, claims nothing.
        assertFalse(ids("DCGM_FI_DEV_ROW_REMAP_FAILURE{gpu=\"0\"} 0", PodRole.WORKLOAD).contains("exporter-series-in-log"));
        assertFalse(ids("watching DCGM_FI_DEV_XID_ERRORS for 5 minutes", PodRole.WORKLOAD).contains("exporter-series-in-log"));
    }

    @Test
    void aWorkloadPrintingNoDevicesFoundFencesNothing() {
        assertFalse(ids("No devices were found", PodRole.WORKLOAD).contains("gpu-init-failed-on-node"));
        assertFalse(ids("nvidia-smi: No devices were found on this host, continuing", PodRole.DRIVER).contains("gpu-init-failed-on-node"));
    }

    /** Reads a log as LogCollector does: line by line, with what came earlier arming the {@code after} signatures. */
    static List<String> idsOfLog(PodRole role, String... lines) {
        java.util.Set<String> armed = new java.util.HashSet<>();
        List<String> out = new java.util.ArrayList<>();
        for (String line : lines) SHIPPED.match(line, role, armed).forEach(sig -> out.add(sig.id()));
        return out;
    }

    @Test
    void noInfinibandDeviceIsTheJobsOwnFilterOnlyAfterItNamedHcas() {
        assertTrue(idsOfLog(PodRole.WORKLOAD, "h100-ib-51:212:388 [0] NCCL INFO NCCL_IB_HCA set to mlx5_bond_0",
                "h100-ib-51:212:388 [0] NCCL INFO NET/IB : No device found.").contains("nccl-ib-filter-matches-nothing"));
        // A node without InfiniBand prints the same line whenever NCCL starts: alone it is no fault.
        assertFalse(idsOfLog(PodRole.WORKLOAD, "gke-a3:1:1 [0] NCCL INFO NET/IB : No device found.",
                "gke-a3:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>").contains("nccl-ib-filter-matches-nothing"));
        // The setting must come first: the order of the log is NCCL's.
        assertFalse(idsOfLog(PodRole.WORKLOAD, "NCCL INFO NET/IB : No device found.", "NCCL INFO NCCL_IB_HCA set to mlx5_0")
                .contains("nccl-ib-filter-matches-nothing"));
    }

    @Test
    void gpuFeatureDiscoveryLabellingNothingIsKnownOnlyAfterItFoundNoNvml() {
        assertTrue(idsOfLog(PodRole.OPERAND,
                "I1203 05:33:10.547102 1 factory.go:49] Detected non-NVML platform: could not load NVML library: libnvidia-ml.so.1: cannot open shared object file",
                "W1203 05:33:10.547402 1 main.go:260] Warning: no labels generated from any source").contains("gfd-labels-nothing"));
        // Without NVML missing first (a node whose GPUs GFD read, with every label source off) it is no fault.
        assertFalse(idsOfLog(PodRole.OPERAND, "W1203 05:33:10.547402 1 main.go:260] Warning: no labels generated from any source")
                .contains("gfd-labels-nothing"));
        // Only from the agent's own log: a workload printing it says nothing about the node's agent.
        assertFalse(idsOfLog(PodRole.WORKLOAD, "could not load NVML library", "Warning: no labels generated from any source")
                .contains("gfd-labels-nothing"));
    }

    @Test
    void onlyLinesThatLeaveTheNodeUnableToServeAreMarkedSo() {
        assertTrue(SHIPPED.cannotServe().containsAll(List.of("nvml-mismatch", "driver-not-loaded", "driver-module-rejected",
                "agent-host-limit", "gpu-init-failed-on-node")));
        // A container that lost its devices, or a driver package that does not fit a new kernel image (a fleet's pattern): no fence.
        assertFalse(SHIPPED.cannotServe().contains("nvml-lost-device-access"));
        assertFalse(SHIPPED.cannotServe().contains("driver-install-failed"));
    }
}
