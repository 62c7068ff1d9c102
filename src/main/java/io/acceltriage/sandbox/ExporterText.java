package io.acceltriage.sandbox;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders a node's metrics page byte for byte the way the real exporters do: dcgm-exporter's template for
 * NVIDIA nodes (HELP, TYPE, then one line per GPU with gpu, UUID, pci_bus_id, device, modelName, Hostname,
 * the label fields, then the pod attributes from the kubelet pod-resources API), and the GKE TPU device
 * plugin's Cloud TPU metrics for TPU nodes.
 */
final class ExporterText {

    /** Who holds a device, as the kubelet pod-resources API tells the exporter. */
    record Holder(String namespace, String pod, String container) {
    }

    record Counter(String field, String type, String help) {
    }

    /** DCGM stores these fields as doubles, and dcgm-exporter prints doubles with Go's %f. */
    private static final Set<String> DOUBLE_FIELDS = Set.of("DCGM_FI_DEV_POWER_USAGE");

    private static final List<Counter> TPU_METRICS = List.of(
            new Counter("duty_cycle", "gauge",
                    "Percentage of time over the sample period during which the accelerator was actively processing."),
            new Counter("memory_total", "gauge", "Total accelerator memory allocated in bytes."),
            new Counter("memory_used", "gauge", "Total accelerator memory used in bytes."),
            new Counter("tensorcore_utilization", "gauge",
                    "Current percentage of the Tensorcore that is utilized."));

    private final List<Counter> counters;

    ExporterText(List<Counter> counters) {
        this.counters = List.copyOf(counters);
    }

    static ExporterText load() {
        try (InputStream in = ExporterText.class.getResourceAsStream("/sandbox/dcgm-counters.csv")) {
            if (in == null) {
                throw new IllegalStateException("sandbox/dcgm-counters.csv is missing from the classpath");
            }
            List<Counter> counters = new ArrayList<>();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split(",", 3);
                if (parts.length != 3) {
                    throw new IllegalStateException("sandbox/dcgm-counters.csv: bad line: " + line);
                }
                counters.add(new Counter(parts[0].trim(), parts[1].trim(), parts[2].trim()));
            }
            return new ExporterText(counters);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String dcgm(String hostname, String driverVersion, List<DeviceState.Device> gpus, Map<String, Holder> holders) {
        List<Counter> labelFields = counters.stream().filter(c -> c.type().equals("label")).toList();
        StringBuilder out = new StringBuilder();
        for (Counter counter : counters) {
            if (counter.type().equals("label")) {
                continue;
            }
            out.append("# HELP ").append(counter.field()).append(' ').append(counter.help()).append('\n');
            out.append("# TYPE ").append(counter.field()).append(' ').append(counter.type()).append('\n');
            for (DeviceState.Device gpu : gpus) {
                out.append(counter.field())
                        .append("{gpu=\"").append(gpu.index())
                        .append("\",UUID=\"").append(gpu.id())
                        .append("\",pci_bus_id=\"").append(gpu.pciBusId())
                        .append("\",device=\"nvidia").append(gpu.index())
                        .append("\",modelName=\"").append(gpu.model())
                        .append("\",Hostname=\"").append(hostname).append('"');
                for (Counter label : labelFields) {
                    // the only label field the sandbox serves is the driver version
                    out.append(',').append(label.field()).append("=\"").append(driverVersion).append('"');
                }
                Holder holder = holders.get(gpu.id());
                if (holder != null) {
                    out.append(",container=\"").append(holder.container())
                            .append("\",namespace=\"").append(holder.namespace())
                            .append("\",pod=\"").append(holder.pod()).append('"');
                }
                out.append("} ").append(value(counter.field(), dcgmValue(counter.field(), gpu))).append('\n');
            }
        }
        return out.toString();
    }

    String tpu(String model, List<DeviceState.Device> chips, Map<String, Holder> holders) {
        StringBuilder out = new StringBuilder();
        for (Counter metric : TPU_METRICS) {
            out.append("# HELP ").append(metric.field()).append(' ').append(metric.help()).append('\n');
            out.append("# TYPE ").append(metric.field()).append(' ').append(metric.type()).append('\n');
            for (DeviceState.Device chip : chips) {
                out.append(metric.field()).append("{accelerator_id=\"").append(chip.id()).append('"');
                Holder holder = holders.get(chip.id());
                if (holder != null) {
                    out.append(",container=\"").append(holder.container()).append('"');
                }
                out.append(",make=\"cloud-tpu\",model=\"").append(model).append('"');
                if (holder != null) {
                    out.append(",namespace=\"").append(holder.namespace())
                            .append("\",pod=\"").append(holder.pod()).append('"');
                }
                out.append("} ").append((long) chip.get(metric.field())).append('\n');
            }
        }
        return out.toString();
    }

    private static double dcgmValue(String field, DeviceState.Device gpu) {
        if (field.equals("DCGM_FI_DEV_FB_FREE")) {
            return gpu.memoryMiB() - gpu.reservedMiB() - gpu.get("DCGM_FI_DEV_FB_USED");
        }
        return gpu.get(field);
    }

    private static String value(String field, double v) {
        return DOUBLE_FIELDS.contains(field) ? String.format(Locale.ROOT, "%f", v) : Long.toString((long) v);
    }
}
