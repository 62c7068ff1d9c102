package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.IntStream;

/** The seeded fleet as {@code sandbox/fleet.yaml} describes it. */
record FleetSpec(Cluster cluster, List<Pool> pools) {

    record Cluster(String region, List<String> zones, String kubeletVersion, String kernel, String osImage,
            String containerRuntime, String nvidiaDriver) {
    }

    record Pool(String name, String nodePrefix, int nodes, String instanceType, String cpu, String allocatableCpu,
            String memory, String allocatableMemory, Accelerator accelerator, String provisioner) {

        List<String> nodeNames() {
            return IntStream.rangeClosed(1, nodes).mapToObj(i -> String.format("%s%02d", nodePrefix, i)).toList();
        }

        boolean nvidia() {
            return accelerator != null && accelerator.resource().equals("nvidia.com/gpu");
        }

        boolean tpu() {
            return accelerator != null && accelerator.resource().equals("google.com/tpu");
        }
    }

    record Accelerator(String resource, int count, String product, String modelName, String gkeAccelerator,
            String topology, long memoryMiB, long reservedMiB, int memClockMHz, int smClockMHz, double idleWatts,
            double busyWatts, int slowdownTempC, List<String> pciBusIds) {
    }

    static FleetSpec load() {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
        try (InputStream in = FleetSpec.class.getResourceAsStream("/sandbox/fleet.yaml")) {
            if (in == null) {
                throw new IllegalStateException("sandbox/fleet.yaml is missing from the classpath");
            }
            return yaml.readValue(in, FleetSpec.class);
        } catch (IOException e) {
            throw new UncheckedIOException("sandbox/fleet.yaml is invalid: " + e.getMessage(), e);
        }
    }

    Pool poolOf(String node) {
        return pools.stream().filter(p -> p.nodeNames().contains(node)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown node " + node));
    }

    List<String> nodeNames() {
        return pools.stream().flatMap(p -> p.nodeNames().stream()).toList();
    }
}
