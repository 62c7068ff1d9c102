package io.acceltriage.action;

import io.acceltriage.evidence.MetricsSource;
import io.acceltriage.evidence.Sample;
import java.util.List;
import java.util.Optional;

/**
 * The GPUs as the node's metrics source reports them: dcgm-exporter labels each GPU's series with its
 * index ({@code gpu}), {@code UUID} and, from the kubelet's pod-resources view, the
 * {@code namespace}/{@code pod} holding it; {@code DCGM_FI_DEV_XID_ERRORS} is the last XID (0: clear).
 */
public final class TelemetryGpus implements GpuDevices {

    private final MetricsSource metrics;

    public TelemetryGpus(MetricsSource metrics) {
        this.metrics = metrics;
    }

    @Override
    public Optional<Gpu> read(String node, int index) {
        List<Sample> samples;
        try {
            samples = metrics.now(node);
        } catch (MetricsSource.EvidenceUnavailable e) {
            return Optional.empty();
        }
        List<Sample> mine = samples.stream().filter(s -> String.valueOf(index).equals(s.label("gpu"))).toList();
        Optional<Sample> xid = mine.stream().filter(s -> s.name().equals("DCGM_FI_DEV_XID_ERRORS")).findFirst();
        if (xid.isEmpty()) return Optional.empty();
        List<String> pods = mine.stream().filter(s -> s.label("pod") != null && !s.label("pod").isEmpty() && s.label("namespace") != null)
                .map(s -> s.label("namespace") + "/" + s.label("pod")).distinct().toList();
        return Optional.of(new Gpu(xid.get().label("UUID"), xid.get().value(), pods));
    }
}
