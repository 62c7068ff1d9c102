package io.acceltriage.cluster;

/** What an action's target names: a node, a pod (namespace/name) or a workload (namespace/name). */
public enum TargetKind { NODE, POD, WORKLOAD }
