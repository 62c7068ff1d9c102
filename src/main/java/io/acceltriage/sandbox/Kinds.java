package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.List;

/**
 * Where an object of a given apiVersion and kind lives in the REST API (its path and whether it is
 * namespaced). Built-in kinds come from fabric8's model; the workload kinds below have no model class,
 * so the CRUD server has to be told about them the way a real cluster learns them from their CRDs.
 */
final class Kinds {

    /** The custom kinds a GPU fleet commonly runs, as their CRDs declare them. */
    static final List<CustomResourceDefinitionContext> CUSTOM = List.of(
            custom("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets", true),
            custom("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs", true),
            custom("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", "leaderworkersets", true),
            // The Prometheus operator's scrape targets: fleets scrape their exporters through them.
            custom("monitoring.coreos.com", "v1", "ServiceMonitor", "servicemonitors", true),
            custom("monitoring.coreos.com", "v1", "PodMonitor", "podmonitors", true),
            // What makes and remakes nodes in a Cluster API or Karpenter pool (NodeProvisioners).
            custom("cluster.x-k8s.io", "v1beta1", "Machine", "machines", true),
            custom("cluster.x-k8s.io", "v1beta1", "MachineHealthCheck", "machinehealthchecks", true),
            custom("karpenter.sh", "v1", "NodeClaim", "nodeclaims", false),
            // ResourceSlice has a model class, but the CRUD server only answers discovery for kinds it
            // was told about, and generic clients need that discovery.
            custom("resource.k8s.io", "v1beta1", "ResourceSlice", "resourceslices", false));

    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private Kinds() {
    }

    record Kind(String group, String version, String kind, String plural, boolean namespaced) {

        String collectionPath(String namespace) {
            String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
            // a namespaced kind without a namespace is the all-namespaces collection
            return namespaced && namespace != null ? base + "/namespaces/" + namespace + "/" + plural
                    : base + "/" + plural;
        }

        String objectPath(String namespace, String name) {
            return collectionPath(namespace) + "/" + name;
        }
    }

    static Kind of(String apiVersion, String kind) {
        if (apiVersion == null || kind == null) {
            throw new IllegalArgumentException("an object needs apiVersion and kind, got apiVersion=" + apiVersion
                    + " kind=" + kind);
        }
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        for (CustomResourceDefinitionContext c : CUSTOM) {
            if (c.getGroup().equals(group) && c.getVersion().equals(version) && c.getKind().equals(kind)) {
                return new Kind(group, version, kind, c.getPlural(), c.isNamespaceScoped());
            }
        }
        Class<? extends KubernetesResource> type = SERIALIZATION.getRegisteredKubernetesResource(apiVersion, kind);
        if (type == null || !HasMetadata.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("unknown kind " + kind + " in " + apiVersion
                    + "; the sandbox knows the built-in kinds and " + CUSTOM.stream()
                            .map(c -> c.getKind() + " (" + c.getGroup() + "/" + c.getVersion() + ")").toList());
        }
        @SuppressWarnings("unchecked")
        Class<? extends HasMetadata> typed = (Class<? extends HasMetadata>) type;
        return new Kind(group, version, kind, HasMetadata.getPlural(typed), Namespaced.class.isAssignableFrom(typed));
    }

    private static CustomResourceDefinitionContext custom(String group, String version, String kind, String plural,
            boolean namespaced) {
        return new CustomResourceDefinitionContext.Builder()
                .withGroup(group).withVersion(version).withKind(kind).withPlural(plural)
                .withName(plural + "." + group)
                .withScope(namespaced ? "Namespaced" : "Cluster")
                // no status subresource: the sandbox writes status together with the object, as a
                // controller's status update would leave it
                .withStatusSubresource(false)
                .build();
    }
}
