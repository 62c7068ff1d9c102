package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What makes and remakes the sandbox's nodes, for the pools {@code fleet.yaml} gives a provisioner:
 *
 * <ul>
 *   <li>{@code clusterapi}: each node has a Machine ({@code cluster.x-k8s.io/v1beta1}, in namespace
 *       {@value #CAPI_NAMESPACE}, its {@code status.nodeRef} the node, the node annotated
 *       {@code cluster.x-k8s.io/machine} and {@code cluster.x-k8s.io/cluster-namespace} as Cluster API writes them)
 *       and the pool a MachineHealthCheck. A Machine annotated {@code cluster.x-k8s.io/remediate-machine} is
 *       remediated as its MachineHealthCheck says: with a {@code spec.remediationTemplate} (an external
 *       remediation such as Metal3's), the node reboots (new boot id, GPUs cleared, Ready) and the request is
 *       cleared; without one, the MachineSet deletes the Machine and its node and makes a new Machine, whose
 *       node joins the pool.
 *   <li>{@code karpenter}: each node has a NodeClaim ({@code karpenter.sh/v1}, cluster-scoped, {@code status.nodeName}),
 *       the node labelled {@code karpenter.sh/nodepool}. A node whose NodeClaim was deleted is drained and
 *       deleted (the termination controller), and the NodePool provisions a new NodeClaim and node.
 * </ul>
 *
 * A handshake repairer asked to replace a node uses {@link #replace} too. They act on their own thread
 * through the API, a moment after the write, as controllers do.
 */
final class NodeProvisioners implements AutoCloseable {

    static final String CAPI_NAMESPACE = "capi-fleet";
    static final String CLUSTER = "acme-ml";
    static final String REMEDIATE = "cluster.x-k8s.io/remediate-machine";
    static final String NODEPOOL = "karpenter.sh/nodepool";

    static final ResourceDefinitionContext MACHINES = context("cluster.x-k8s.io", "v1beta1", "Machine", "machines", true);
    static final ResourceDefinitionContext HEALTH_CHECKS = context("cluster.x-k8s.io", "v1beta1", "MachineHealthCheck",
            "machinehealthchecks", true);
    static final ResourceDefinitionContext NODECLAIMS = context("karpenter.sh", "v1", "NodeClaim", "nodeclaims", false);

    private final KubernetesClient client;
    private final DeviceState devices;
    private final FleetSeed seed;
    private final AtomicInteger made = new AtomicInteger();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sandbox-node-provisioners");
        t.setDaemon(true);
        return t;
    });

    NodeProvisioners(KubernetesClient client, DeviceState devices, FleetSeed seed) {
        this.client = client;
        this.devices = devices;
        this.seed = seed;
    }

    /** The Cluster API or Karpenter objects of a node of a provisioned pool, and the marks they leave on the node. */
    static List<Map<String, Object>> objectsOf(FleetSpec.Pool pool, HasMetadata node) {
        String name = node.getMetadata().getName();
        String provider = node instanceof Node n && n.getSpec() != null ? n.getSpec().getProviderID() : null;
        if ("clusterapi".equals(pool.provisioner())) {
            String machine = pool.name() + "-md-" + FleetSeed.suffix("machine/" + name, 5);
            node.getMetadata().getAnnotations().put("cluster.x-k8s.io/machine", machine);
            node.getMetadata().getAnnotations().put("cluster.x-k8s.io/cluster-namespace", CAPI_NAMESPACE);
            node.getMetadata().getAnnotations().put("cluster.x-k8s.io/cluster-name", CLUSTER);
            node.getMetadata().getAnnotations().put("cluster.x-k8s.io/owner-kind", "MachineSet");
            node.getMetadata().getAnnotations().put("cluster.x-k8s.io/owner-name", pool.name() + "-md");
            Map<String, Object> m = object("cluster.x-k8s.io/v1beta1", "Machine", machine, CAPI_NAMESPACE,
                    Map.of("cluster.x-k8s.io/cluster-name", CLUSTER, "cluster.x-k8s.io/deployment-name", pool.name() + "-md"));
            m.put("spec", Map.of("clusterName", CLUSTER, "providerID", provider == null ? "" : provider,
                    "bootstrap", Map.of("dataSecretName", machine + "-bootstrap")));
            m.put("status", Map.of("phase", "Running", "nodeRef", Map.of("apiVersion", "v1", "kind", "Node", "name", name)));
            return List.of(m);
        }
        if ("karpenter".equals(pool.provisioner())) {
            String claim = pool.name() + "-" + FleetSeed.suffix("nodeclaim/" + name, 5);
            node.getMetadata().getLabels().put(NODEPOOL, pool.name());
            Map<String, Object> c = object("karpenter.sh/v1", "NodeClaim", claim, null, Map.of(NODEPOOL, pool.name()));
            c.put("spec", Map.of("nodeClassRef", Map.of("group", "karpenter.k8s.aws", "kind", "EC2NodeClass", "name", "default")));
            c.put("status", Map.of("nodeName", name, "providerID", provider == null ? "" : provider));
            return List.of(c);
        }
        return List.of();
    }

    /** The MachineHealthCheck of a Cluster API pool: no external remediation, so its MachineSet replaces. */
    static List<Map<String, Object>> poolObjects(FleetSpec.Pool pool) {
        if (!"clusterapi".equals(pool.provisioner())) return List.of();
        Map<String, Object> mhc = object("cluster.x-k8s.io/v1beta1", "MachineHealthCheck", pool.name() + "-unhealthy", CAPI_NAMESPACE,
                Map.of("cluster.x-k8s.io/cluster-name", CLUSTER));
        mhc.put("spec", Map.of("clusterName", CLUSTER, "maxUnhealthy", "40%",
                "selector", Map.of("matchLabels", Map.of("cluster.x-k8s.io/deployment-name", pool.name() + "-md")),
                "unhealthyConditions", List.of(Map.of("type", "Ready", "status", "False", "timeout", "300s"))));
        return List.of(mhc);
    }

    /** Called after a write to a Machine or a NodeClaim. */
    void written(String method, String path) {
        if (worker.isShutdown()) return;
        if (path.startsWith("/apis/cluster.x-k8s.io/") && path.contains("/machines/") && !method.equals("DELETE")) {
            String name = path.substring(path.lastIndexOf('/') + 1);
            worker.execute(() -> quietly(() -> remediate(name)));
        } else if (path.startsWith("/apis/karpenter.sh/") && method.equals("DELETE")) {
            worker.execute(() -> quietly(this::terminateUnclaimed));
        }
    }

    private void remediate(String machine) {
        GenericKubernetesResource m = client.genericKubernetesResources(MACHINES).inNamespace(CAPI_NAMESPACE).withName(machine).get();
        if (m == null || m.getMetadata().getAnnotations() == null || !m.getMetadata().getAnnotations().containsKey(REMEDIATE)) return;
        String node = nodeRef(m);
        if (node == null || client.nodes().withName(node).get() == null) return;
        if (externalRemediation(m)) {
            reboot(node);
            client.genericKubernetesResources(MACHINES).inNamespace(CAPI_NAMESPACE).withName(machine).edit(x -> {
                Map<String, String> a = new HashMap<>(x.getMetadata().getAnnotations());
                a.remove(REMEDIATE);
                x.getMetadata().setAnnotations(a);
                return x;
            });
        } else {
            replace(node);
        }
    }

    /** True when a MachineHealthCheck selecting the Machine names a remediationTemplate (an external remediation). */
    private boolean externalRemediation(GenericKubernetesResource machine) {
        Map<String, String> labels = machine.getMetadata().getLabels() == null ? Map.of() : machine.getMetadata().getLabels();
        for (GenericKubernetesResource mhc : client.genericKubernetesResources(HEALTH_CHECKS).inNamespace(CAPI_NAMESPACE).list().getItems()) {
            if (!(mhc.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec)) continue;
            boolean selects = spec.get("selector") instanceof Map<?, ?> sel && sel.get("matchLabels") instanceof Map<?, ?> ml
                    && ml.entrySet().stream().allMatch(e -> String.valueOf(e.getValue()).equals(labels.get(String.valueOf(e.getKey()))));
            if (selects && spec.get("remediationTemplate") != null) return true;
        }
        return false;
    }

    /** The termination controller: a Karpenter node whose NodeClaim is gone is drained, deleted and replaced. */
    private void terminateUnclaimed() {
        // Nodes first, then claims: replace() creates a new node's NodeClaim before the node, so every node listed
        // here has its claim in the later list. The other order could list the claims just before a replacement's
        // claim and the nodes just after its node, and take a node that was just made for unclaimed.
        List<Node> nodes = client.nodes().list().getItems();
        List<String> claimed = client.genericKubernetesResources(NODECLAIMS).list().getItems().stream()
                .map(c -> c.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? String.valueOf(s.get("nodeName")) : "")
                .toList();
        for (Node n : nodes) {
            if (n.getMetadata().getLabels() != null && n.getMetadata().getLabels().containsKey(NODEPOOL)
                    && !claimed.contains(n.getMetadata().getName())) {
                replace(n.getMetadata().getName());
            }
        }
    }

    /**
     * The node's machine is gone and a new one joins its pool: the old Node (its pods, its Machine or
     * NodeClaim) deleted, a new Node with idle, healthy accelerators created, Ready, with its own Machine or NodeClaim.
     */
    void replace(String old) {
        Node n = client.nodes().withName(old).get();
        if (n == null) return;
        FleetSpec.Pool pool = devices.pool(old);
        String zone = n.getMetadata().getLabels().getOrDefault("topology.kubernetes.io/zone", "");
        for (Pod p : client.pods().inAnyNamespace().withField("spec.nodeName", old).list().getItems()) {
            client.pods().inNamespace(p.getMetadata().getNamespace()).withName(p.getMetadata().getName()).delete();
        }
        String machine = n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get("cluster.x-k8s.io/machine");
        if (machine != null) client.genericKubernetesResources(MACHINES).inNamespace(CAPI_NAMESPACE).withName(machine).delete();
        client.nodes().withName(old).delete();
        // a NodeClaim still naming the node (a handshake repairer replaced it, not Karpenter) goes with it, after the node:
        // the termination reconciler this deletion wakes must find no node left to replace
        client.genericKubernetesResources(NODECLAIMS).list().getItems().stream()
                .filter(c -> c.getAdditionalProperties().get("status") instanceof Map<?, ?> st && old.equals(st.get("nodeName")))
                .forEach(c -> client.genericKubernetesResources(NODECLAIMS).withName(c.getMetadata().getName()).delete());
        String name = pool.nodePrefix() + FleetSeed.suffix("replacement/" + old + "/" + made.incrementAndGet() + "/" + UUID.randomUUID(), 5);
        devices.join(name, pool);
        HasMetadata fresh = seed.node(pool, name, zone);
        // A NodePool's or MachineDeployment's template labels every node it makes: the operator's pool label the
        // replaced node carried (it may name a part of the fleet's pool) carries over to its replacement.
        String poolLabel = n.getMetadata().getLabels().get("acceltriage.io/pool");
        if (poolLabel != null) fresh.getMetadata().getLabels().put("acceltriage.io/pool", poolLabel);
        fresh.getMetadata().setUid(UUID.randomUUID().toString());
        fresh.getMetadata().setCreationTimestamp(java.time.Instant.now().toString());
        for (Map<String, Object> o : objectsOf(pool, fresh)) {
            if ("NodeClaim".equals(o.get("kind"))) {
                // the NodeClaim named by the replaced one may be gone already: a new name either way
                @SuppressWarnings("unchecked")
                Map<String, Object> meta = (Map<String, Object>) o.get("metadata");
                meta.put("name", pool.name() + "-" + FleetSeed.suffix("nodeclaim/" + name, 5));
            }
            ResourceDefinitionContext kind = "NodeClaim".equals(o.get("kind")) ? NODECLAIMS : MACHINES;
            var created = client.genericKubernetesResources(kind);
            GenericKubernetesResource r = client.getKubernetesSerialization().convertValue(o, GenericKubernetesResource.class);
            (kind.isNamespaceScoped() ? created.inNamespace(CAPI_NAMESPACE) : created).resource(r).create();
        }
        client.resource((Node) fresh).create();
    }

    /**
     * A reboot: every accelerator cleared and advertised again, a new boot id, the node Ready with the
     * not-ready taints gone. The handshake repairer's reboot is this one too.
     */
    void reboot(String node) {
        for (DeviceState.Device d : devices.devices(node)) devices.recover(node, d.index());
        devices.setExporterUp(node, true);
        String count = String.valueOf(devices.devices(node).size());
        String resource = devices.pool(node).accelerator().resource();
        client.nodes().withName(node).edit(x -> new NodeBuilder(x)
                .editStatus().editNodeInfo().withBootID(UUID.randomUUID().toString()).endNodeInfo()
                .addToCapacity(resource, new io.fabric8.kubernetes.api.model.Quantity(count))
                .addToAllocatable(resource, new io.fabric8.kubernetes.api.model.Quantity(count))
                .withConditions(ready(x.getStatus().getConditions())).endStatus()
                .editSpec().withTaints(x.getSpec().getTaints() == null ? List.of() : x.getSpec().getTaints().stream()
                        .filter(t -> !t.getKey().startsWith("node.kubernetes.io/")).toList()).endSpec()
                .build());
    }

    private static List<NodeCondition> ready(List<NodeCondition> conditions) {
        List<NodeCondition> out = new ArrayList<>();
        for (NodeCondition c : conditions) {
            NodeCondition copy = new io.fabric8.kubernetes.api.model.NodeConditionBuilder(c).build();
            boolean isReady = c.getType().equals("Ready");
            copy.setStatus(isReady ? "True" : "False");
            if (isReady) {
                copy.setReason("KubeletReady");
                copy.setMessage("kubelet is posting ready status");
            }
            out.add(copy);
        }
        return out;
    }

    private static String nodeRef(GenericKubernetesResource m) {
        return m.getAdditionalProperties().get("status") instanceof Map<?, ?> s && s.get("nodeRef") instanceof Map<?, ?> r
                ? String.valueOf(r.get("name")) : null;
    }

    private static Map<String, Object> object(String apiVersion, String kind, String name, String namespace, Map<String, String> labels) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", apiVersion);
        o.put("kind", kind);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        if (namespace != null) meta.put("namespace", namespace);
        meta.put("labels", new LinkedHashMap<>(labels));
        o.put("metadata", meta);
        return o;
    }

    private static ResourceDefinitionContext context(String group, String version, String kind, String plural, boolean namespaced) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural)
                .withNamespaced(namespaced).build();
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // the server closing or an object gone mid-answer: a controller retries on the next event, here there is none
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
