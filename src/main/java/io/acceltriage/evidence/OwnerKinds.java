package io.acceltriage.evidence;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.Set;

/** Workload kinds the collector walks up to, and which of them run as gangs (restarted only whole). */
public final class OwnerKinds {
    private OwnerKinds() {}

    public static final Set<String> GANG_KINDS = Set.of("JobSet", "PyTorchJob", "LeaderWorkerSet", "MPIJob", "TFJob",
            "XGBoostJob", "JAXJob", "PaddleJob", "TrainJob", "RayJob");

    /** Custom resources the collector reads by name; built-in kinds go through typed clients. */
    public static final Map<String, ResourceDefinitionContext> CUSTOM = Map.of(
            "JobSet", ctx("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"),
            "LeaderWorkerSet", ctx("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet"),
            "PyTorchJob", ctx("kubeflow.org", "v1", "pytorchjobs", "PyTorchJob"));

    private static ResourceDefinitionContext ctx(String group, String version, String plural, String kind) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withPlural(plural)
                .withKind(kind).withNamespaced(true).build();
    }
}
