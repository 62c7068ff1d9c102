package io.acceltriage.sandbox;

import java.util.Arrays;
import java.util.List;

/** The faults the sandbox can inject, by the name a request uses. */
enum FaultKind {
    XID("xid"),
    DBE_ECC("dbe-ecc"),
    ROW_REMAP_FAILURE("row-remap-failure"),
    RETIRED_PAGES("retired-pages"),
    DEVICE_PLUGIN_CRASH("device-plugin-crash"),
    DEVICE_PLUGIN_ROLLOUT("device-plugin-rollout"),
    NVML_MISMATCH("nvml-mismatch"),
    CUDA_OOM("cuda-oom"),
    NODE_NOT_READY("node-not-ready");

    final String wireName;

    FaultKind(String wireName) {
        this.wireName = wireName;
    }

    static List<String> names() {
        return Arrays.stream(values()).map(k -> k.wireName).toList();
    }

    static FaultKind parse(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("kind is required; one of " + names());
        }
        return Arrays.stream(values()).filter(k -> k.wireName.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("kind \"" + name + "\" is unknown; one of " + names()));
    }
}
