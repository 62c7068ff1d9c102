package io.acceltriage.evidence;

/** Where evidence came from; also names the source in collection errors and metrics. */
public enum Source { METRICS, CLUSTER, LOGS, EVENTS }
