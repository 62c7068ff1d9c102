package io.acceltriage.action;

import java.util.List;
import java.util.Optional;

/**
 * What the node's GPU telemetry says about one GPU: its UUID (the resource id the device plugin gives
 * pods in KEP-4680 {@code allocatedResourcesStatus}), the last XID it reported, and the pods the
 * exporter names as holding it (dcgm-exporter's pod-resources labels). The reset reads it to find the
 * GPU's pods before and to see the XID cleared after; Kubernetes alone does not map an index to a UUID.
 */
public interface GpuDevices {

    /** One GPU as its exporter reports it. {@code xid}: the DCGM_FI_DEV_XID_ERRORS gauge, 0 when clear. */
    record Gpu(String uuid, double xid, List<String> pods) {}

    /** Empty when the exporter cannot be read or does not list the GPU. */
    Optional<Gpu> read(String node, int index);

    /** No telemetry: the reset finds pods by KEP-4680 resource ids alone and verifies from the node. */
    GpuDevices NONE = (node, index) -> Optional.empty();
}
