package io.acceltriage.evidence;

import java.util.List;

/** What the API server said about the subject's node, its pods and their workloads. */
record ClusterView(String node, String pool, boolean nodeCordoned, List<Observation> observations,
        List<PodPlacement> pods, List<Workload> workloads, List<LogTarget> logTargets, List<Gap> gaps) {}
