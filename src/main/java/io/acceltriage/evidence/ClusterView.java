package io.acceltriage.evidence;

import java.util.List;

/**
 * What the API server said about the subject's node, its pods and their workloads. {@code node} is the
 * one node to fence if any; {@code metricNodes} every node whose devices matter (a workload's nodes);
 * {@code exporterAddresses} the pod IPs of the exporter DaemonSet's pods, by node.
 */
record ClusterView(String node, String pool, boolean nodeCordoned, List<String> metricNodes, List<Observation> observations,
        List<PodPlacement> pods, List<Workload> workloads, List<LogTarget> logTargets, List<Gap> gaps,
        java.util.Map<String, java.util.Set<String>> exporterAddresses) {}
