package io.acceltriage.evidence;

/**
 * Where evidence came from; also names the source in collection errors and metrics. {@code DRILL} is
 * a shadow drill's synthetic reading of its own fault ({@link EvidenceOverlay}), never read from a cluster.
 */
public enum Source { METRICS, CLUSTER, LOGS, EVENTS, DRILL }
