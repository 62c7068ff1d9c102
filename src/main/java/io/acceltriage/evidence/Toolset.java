package io.acceltriage.evidence;

import java.util.List;

/**
 * One file of {@code tools/}: named, described PromQL templates with typed parameters and fault rules.
 * {@code trust}: {@code tenant} when the workload itself serves the series (an inference server's or a
 * trainer's own metrics), so its readings may raise suspicion but never fence; absent or {@code
 * platform} for device exporters. {@code workloads}: see {@link #servedBy}. {@code resource}: the extended
 * resource of the devices a device toolset reads ({@code nvidia.com/gpu}), so an investigation of a
 * node that has none of them is not offered it.
 */
public record Toolset(String apiVersion, String kind, String name, String description, List<Tool> tools, String trust,
        String workloads, String resource) {

    public boolean tenant() {
        return "tenant".equals(trust);
    }

    /**
     * Which workloads serve a tenant toolset's series ({@code workloads: serving} or {@code training}),
     * so an investigation is offered it only where such a workload is involved; absent: any workload.
     */
    public boolean servedBy(Workload w) {
        if (workloads == null) return true;
        return "serving".equals(workloads) == w.serving();
    }

    /**
     * {@code formerly}: names the exporter served the same series under before (dcgm-exporter 3.x serves
     * {@code DCGM_FI_DEV_CLOCK_THROTTLE_REASONS} where DCGM 3.3+ names it {@code DCGM_FI_DEV_CLOCKS_EVENT_REASONS}),
     * read as this tool's metric.
     */
    public record Tool(String name, String description, String metric, String query, List<Parameter> parameters,
            Fault fault, List<String> formerly, Impact impact) {}

    /**
     * What the tool tells about a fault's effect on the service (reliability's per-incident impact): the
     * query, filled with the workload's namespace and a {@code window}, is read at the fault's start
     * (the window before) and one window later (the window after). {@code measure}: latency-p50,
     * latency-p99, latency-mean (seconds), failed-requests (a count over the window), step-time (the
     * slowest rank's seconds per step), checkpoint-age (seconds of work since the last checkpoint; read
     * at the fault only).
     */
    public record Impact(String measure) {
        public static final java.util.Set<String> MEASURES = java.util.Set.of("latency-p50", "latency-p99", "latency-mean",
                "failed-requests", "step-time", "checkpoint-age");

        /** Read at the fault only: what the moment of the fault put at stake, not a before/after pair. */
        public boolean atFaultOnly() {
            return "checkpoint-age".equals(measure);
        }
    }

    public record Parameter(String name, ParameterType type, String description) {}

    public enum ParameterType { NODE, GPU, NAMESPACE, POD, DURATION, STRING }

    /**
     * When a reading is a fault. {@code changed}: a gauge moved to a new non-zero value; {@code
     * increased}: a counter grew; {@code above}: value ≥ threshold; {@code bits}: value has any bit of
     * the mask threshold; {@code rate}: per-second growth ≥ threshold; {@code idle}: 0 on a device a
     * running pod holds. {@code sumWith} adds another metric of the same device before comparing.
     * {@code catalogue: xid} hands the value to the XID catalogue instead of a fixed family; {@code
     * catalogue: xid-count} reads a count of one XID (label {@code xid}) and applies the catalogue's
     * family for a code repeating on one device when the count reaches the threshold. {@code replace}: the device
     * is due for replacement (NVIDIA's retired-page limit): the node is kept from new work, nothing is moved or reset.
     * {@code reset}: the device recorded a repair that takes effect only at its next reset (a page retirement pending)
     * and works meanwhile: the node is kept from new work so the GPU can be reset once what runs there ends; nothing
     * is moved, and it is not reset under the work. {@code service}: the device works, slowed, until a person services
     * the hardware (a PCIe link or riser that replays): the node is kept from new work, nothing is moved, reset or
     * rebooted (none of them changes the hardware). {@code serviceWhenNodeWide}: a degradation of one device that,
     * found on every device of a node at once, is the node's (its power delivery or cooling) and needs service.
     */
    public record Fault(Condition when, Double threshold, String family, Double weight, String cause,
            Boolean degradation, String catalogue, String sumWith, Boolean replace, Boolean reset, Boolean service,
            Boolean serviceWhenNodeWide) {
        public boolean degrades() {
            return Boolean.TRUE.equals(degradation);
        }

        public boolean replaces() {
            return Boolean.TRUE.equals(replace);
        }

        public boolean awaitsReset() {
            return Boolean.TRUE.equals(reset);
        }

        public boolean needsService() {
            return Boolean.TRUE.equals(service);
        }

        public boolean nodeWideNeedsService() {
            return Boolean.TRUE.equals(serviceWhenNodeWide);
        }
    }

    public enum Condition { CHANGED, INCREASED, ABOVE, BITS, RATE, IDLE }
}
