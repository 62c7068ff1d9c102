package io.acceltriage.evidence;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** What one evidence item observed. Each kind is a small record; the classifier reads them by type. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Facts.MetricReading.class, name = "metric"),
        @JsonSubTypes.Type(value = Facts.AcceleratorCapacity.class, name = "capacity"),
        @JsonSubTypes.Type(value = Facts.NodeCondition.class, name = "node-condition"),
        @JsonSubTypes.Type(value = Facts.NodeTaint.class, name = "node-taint"),
        @JsonSubTypes.Type(value = Facts.NodeDeletion.class, name = "node-deletion"),
        @JsonSubTypes.Type(value = Facts.DeviceHealth.class, name = "device-health"),
        @JsonSubTypes.Type(value = Facts.ContainerState.class, name = "container"),
        @JsonSubTypes.Type(value = Facts.PodPending.class, name = "pod-pending"),
        @JsonSubTypes.Type(value = Facts.PodRejected.class, name = "pod-rejected"),
        @JsonSubTypes.Type(value = Facts.ClusterEvent.class, name = "event"),
        @JsonSubTypes.Type(value = Facts.LogMatch.class, name = "log"),
        @JsonSubTypes.Type(value = Facts.DeviceTaint.class, name = "device-taint"),
        @JsonSubTypes.Type(value = Facts.NodeLabel.class, name = "node-label"),
        @JsonSubTypes.Type(value = Facts.SliceHost.class, name = "slice-host"),
        @JsonSubTypes.Type(value = Facts.BehindPool.class, name = "behind-pool"),
        @JsonSubTypes.Type(value = Facts.Unoffered.class, name = "unoffered"),
        @JsonSubTypes.Type(value = Facts.PastXid.class, name = "past-xid"),
        @JsonSubTypes.Type(value = Facts.GangCheckpoint.class, name = "gang-checkpoint"),
})
public sealed interface Fact permits Facts.MetricReading, Facts.AcceleratorCapacity, Facts.NodeCondition,
        Facts.NodeTaint, Facts.NodeDeletion, Facts.DeviceHealth, Facts.ContainerState, Facts.PodPending, Facts.PodRejected, Facts.ClusterEvent,
        Facts.LogMatch, Facts.DeviceTaint, Facts.NodeLabel, Facts.SliceHost, Facts.BehindPool, Facts.Unoffered,
        Facts.PastXid, Facts.GangCheckpoint {}
