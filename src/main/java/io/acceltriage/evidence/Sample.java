package io.acceltriage.evidence;

import java.util.Map;

/** One sample of the Prometheus text format. */
public record Sample(String name, Map<String, String> labels, double value) {

    public String label(String name) {
        return labels.get(name);
    }

    /** The accelerator this sample is about: dcgm-exporter's gpu index, a TPU's accelerator id, or none. */
    public String device() {
        for (String l : new String[] {"gpu", "accelerator_id", "gpu_id", "card"}) {
            String v = labels.get(l);
            if (v != null) return v;
        }
        return null;
    }
}
