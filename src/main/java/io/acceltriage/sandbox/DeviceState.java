package io.acceltriage.sandbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * What the accelerators of each node report: per device, the DCGM field values (or Cloud TPU metric
 * values) the node's exporter serves, and whether that exporter answers at all.
 */
final class DeviceState {

    /** One GPU or TPU chip. Field values are keyed by DCGM field name (TPU: Cloud TPU metric name). */
    record Device(int index, String id, String pciBusId, String model, long memoryMiB, long reservedMiB,
            Map<String, Double> fields) {

        Device {
            fields = Map.copyOf(fields);
        }

        double get(String field) {
            return fields.getOrDefault(field, 0.0);
        }

        Device with(String field, double value) {
            Map<String, Double> changed = new HashMap<>(fields);
            changed.put(field, value);
            return new Device(index, id, pciBusId, model, memoryMiB, reservedMiB, changed);
        }

        Device plus(String field, double delta) {
            return with(field, get(field) + delta);
        }
    }

    private final FleetSpec spec;
    private final Map<String, List<Device>> devices = new ConcurrentHashMap<>();
    private final Set<String> exporterDown = ConcurrentHashMap.newKeySet();
    private final Set<String> unhealthy = ConcurrentHashMap.newKeySet();
    /** Nodes that joined after the seed (a repairer's replacements), with their pool. */
    private final Map<String, FleetSpec.Pool> joined = new ConcurrentHashMap<>();

    DeviceState(FleetSpec spec) {
        this.spec = spec;
        reset();
    }

    /** Every accelerator back to its seeded, idle, error-free state, every exporter up. */
    void reset() {
        devices.clear();
        exporterDown.clear();
        unhealthy.clear();
        joined.clear();
        for (FleetSpec.Pool pool : spec.pools()) {
            if (pool.accelerator() == null) {
                continue;
            }
            for (String node : pool.nodeNames()) {
                List<Device> list = new ArrayList<>();
                for (int i = 0; i < pool.accelerator().count(); i++) {
                    list.add(pool.tpu() ? idleTpu(node, i, pool.accelerator()) : idleGpu(node, i, pool.accelerator()));
                }
                devices.put(node, List.copyOf(list));
            }
        }
    }

    FleetSpec spec() {
        return spec;
    }

    /** The pool of a seeded node or of one that joined since. */
    FleetSpec.Pool pool(String node) {
        FleetSpec.Pool p = joined.get(node);
        return p != null ? p : spec.poolOf(node);
    }

    /** A new machine joined the pool (a replacement): its accelerators idle and healthy, as a fresh node's are. */
    void join(String node, FleetSpec.Pool pool) {
        joined.put(node, pool);
        if (pool.accelerator() == null) return;
        List<Device> list = new ArrayList<>();
        for (int i = 0; i < pool.accelerator().count(); i++) {
            list.add(pool.tpu() ? idleTpu(node, i, pool.accelerator()) : idleGpu(node, i, pool.accelerator()));
        }
        devices.put(node, List.copyOf(list));
    }

    boolean hasDevices(String node) {
        return devices.containsKey(node);
    }

    List<Device> devices(String node) {
        List<Device> list = devices.get(node);
        if (list == null) {
            throw new IllegalArgumentException("node " + node + " has no accelerators");
        }
        return list;
    }

    Device device(String node, int index) {
        List<Device> list = devices(node);
        if (index < 0 || index >= list.size()) {
            throw new IllegalArgumentException("gpu must be between 0 and " + (list.size() - 1) + " on " + node
                    + ", got " + index);
        }
        return list.get(index);
    }

    void update(String node, int index, UnaryOperator<Device> change) {
        devices.compute(node, (n, list) -> {
            List<Device> changed = new ArrayList<>(list);
            changed.set(index, change.apply(list.get(index)));
            return List.copyOf(changed);
        });
    }

    /** A device given to a running workload: busy, warm, its memory mostly used. */
    void markBusy(String node, int index) {
        FleetSpec.Accelerator accelerator = pool(node).accelerator();
        update(node, index, d -> {
            int j = jitter(d.id());
            if (pool(node).tpu()) {
                return d.with("duty_cycle", 88 + j % 10).with("tensorcore_utilization", 61 + j % 20)
                        .with("memory_used", (double) (accelerator.memoryMiB() * 1024 * 1024 * (80 + j % 15) / 100));
            }
            return d.with("DCGM_FI_DEV_GPU_UTIL", 92 + j % 7)
                    .with("DCGM_FI_DEV_MEM_COPY_UTIL", 38 + j % 20)
                    .with("DCGM_FI_DEV_FB_USED", (double) (accelerator.memoryMiB() * (78 + j % 12) / 100))
                    .with("DCGM_FI_DEV_SM_CLOCK", accelerator.smClockMHz())
                    .with("DCGM_FI_DEV_GPU_TEMP", 61 + j % 9)
                    .with("DCGM_FI_DEV_MEMORY_TEMP", 55 + j % 8)
                    .with("DCGM_FI_DEV_POWER_USAGE", accelerator.busyWatts() + (j % 400) / 10.0)
                    .with("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 0);
        });
    }

    /** The device plugin marks the device unhealthy; false when it already was. */
    boolean markUnhealthy(String node, int index) {
        return unhealthy.add(device(node, index).id());
    }

    /** A reset or reboot brought the device back: idle, error-free, healthy again, as seeded. */
    void recover(String node, int index) {
        FleetSpec.Accelerator a = pool(node).accelerator();
        Device fresh = pool(node).tpu() ? idleTpu(node, index, a) : idleGpu(node, index, a);
        unhealthy.remove(device(node, index).id());
        update(node, index, d -> fresh);
    }

    boolean isUnhealthy(String id) {
        return unhealthy.contains(id);
    }

    int unhealthyCount(String node) {
        return (int) devices(node).stream().filter(d -> unhealthy.contains(d.id())).count();
    }

    void setExporterUp(String node, boolean up) {
        if (up) {
            exporterDown.remove(node);
        } else {
            exporterDown.add(node);
        }
    }

    boolean exporterUp(String node) {
        return !exporterDown.contains(node);
    }

    static String gpuUuid(String node, int index) {
        return "GPU-" + UUID.nameUUIDFromBytes((node + "/gpu/" + index).getBytes());
    }

    private static Device idleGpu(String node, int index, FleetSpec.Accelerator a) {
        String uuid = gpuUuid(node, index);
        int j = jitter(uuid);
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("DCGM_FI_DEV_SM_CLOCK", 345.0);
        f.put("DCGM_FI_DEV_MEM_CLOCK", (double) a.memClockMHz());
        // bit 0x1: the GPU is idle, which is why its clocks are low
        f.put("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 1.0);
        f.put("DCGM_FI_DEV_MEMORY_TEMP", 31.0 + j % 5);
        f.put("DCGM_FI_DEV_GPU_TEMP", 33.0 + j % 6);
        f.put("DCGM_FI_DEV_POWER_USAGE", a.idleWatts() + (j % 90) / 10.0);
        f.put("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 412_000_000_000.0 + j * 7_919_003L);
        f.put("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 0.0);
        f.put("DCGM_FI_DEV_GPU_UTIL", 0.0);
        f.put("DCGM_FI_DEV_MEM_COPY_UTIL", 0.0);
        f.put("DCGM_FI_DEV_XID_ERRORS", 0.0);
        f.put("DCGM_FI_DEV_FB_USED", 0.0);
        f.put("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 0.0);
        f.put("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 0.0);
        f.put("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", (double) (j % 3));
        f.put("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 0.0);
        f.put("DCGM_FI_DEV_RETIRED_SBE", 0.0);
        f.put("DCGM_FI_DEV_RETIRED_DBE", 0.0);
        f.put("DCGM_FI_DEV_RETIRED_PENDING", 0.0);
        f.put("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", 0.0);
        f.put("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 0.0);
        f.put("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", (double) (j % 2));
        f.put("DCGM_FI_DEV_ROW_REMAP_FAILURE", 0.0);
        return new Device(index, uuid, a.pciBusIds().get(index), a.modelName(), a.memoryMiB(), a.reservedMiB(), f);
    }

    private static Device idleTpu(String node, int index, FleetSpec.Accelerator a) {
        long instance = Math.abs(UUID.nameUUIDFromBytes(node.getBytes()).getMostSignificantBits() % 10_000_000_000_000_000L);
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("duty_cycle", 0.0);
        f.put("tensorcore_utilization", 0.0);
        f.put("memory_used", 0.0);
        f.put("memory_total", (double) (a.memoryMiB() * 1024 * 1024));
        return new Device(index, instance + "-" + index, null, a.modelName(), a.memoryMiB(), 0, f);
    }

    /** A stable small number per device, so seeded values differ between devices but not between runs. */
    private static int jitter(String id) {
        return Math.abs(id.hashCode() % 1000);
    }
}
