package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes the seeded world into the simulated API server: the nodes of {@code fleet.yaml}, the GPU
 * operator's DaemonSets with a pod per GPU node, and the workloads a GPU fleet runs (a vLLM Deployment
 * with its budget, a JobSet training gang, a fine-tuning Job, a notebook, a TPU evaluation Job, CoreDNS).
 * Names and uids are stable, so a reset gives back the same world.
 */
final class FleetSeed {

    static final String STARTED = "2026-11-29T08:00:00Z";
    static final String GPU_OPERATOR = "gpu-operator";
    static final String DEVICE_PLUGIN = "nvidia-device-plugin-daemonset";
    static final String DEVICE_PLUGIN_CONTAINER = "nvidia-device-plugin";
    static final String EXPORTER = "nvidia-dcgm-exporter";
    static final String DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0";
    private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private final SimulatedApiServer server;
    private final DeviceState devices;
    private final FleetSpec spec;
    private final Map<String, Integer> nextDevice = new HashMap<>();

    FleetSeed(SimulatedApiServer server, DeviceState devices) {
        this.server = server;
        this.devices = devices;
        this.spec = devices.spec();
    }

    void seed() {
        nextDevice.clear();
        for (String ns : List.of("default", "kube-system", GPU_OPERATOR, "serve", "ml", "research")) {
            server.apply(new NamespaceBuilder().withNewMetadata().withName(ns).withUid(uid("ns/" + ns))
                    .addToLabels("kubernetes.io/metadata.name", ns).endMetadata()
                    .withNewStatus().withPhase("Active").endStatus().build());
        }
        server.apply(new NamespaceBuilder().withNewMetadata().withName(NodeProvisioners.CAPI_NAMESPACE)
                .withUid(uid("ns/" + NodeProvisioners.CAPI_NAMESPACE)).addToLabels("kubernetes.io/metadata.name", NodeProvisioners.CAPI_NAMESPACE)
                .endMetadata().withNewStatus().withPhase("Active").endStatus().build());
        for (FleetSpec.Pool pool : spec.pools()) {
            List<String> names = pool.nodeNames();
            for (int i = 0; i < names.size(); i++) {
                HasMetadata node = node(pool, names.get(i), spec.cluster().zones().get(i % spec.cluster().zones().size()));
                // a Cluster API or Karpenter pool: each node's Machine or NodeClaim, and the marks they leave on it
                NodeProvisioners.objectsOf(pool, node).forEach(server::apply);
                server.apply(node);
            }
            NodeProvisioners.poolObjects(pool).forEach(server::apply);
        }
        gpuOperator();
        coreDns();
        vllm();
        pretrainJobSet();
        research();
        tpuEval();
        server.dispatcher().budgets().refresh(null);
    }

    /**
     * A fleet at scale beside the seeded one, to measure what grows with the cluster (the watched view's
     * memory): {@code nodes} more accelerator nodes in pool "scale", {@code pods} running pods spread
     * over them in namespace "scale", fifty to a ReplicaSet, shaped like the seeded ones.
     */
    void scale(int nodes, int pods) {
        if (nodes <= 0) return;
        server.apply(new NamespaceBuilder().withNewMetadata().withName("scale").withUid(uid("ns/scale"))
                .addToLabels("kubernetes.io/metadata.name", "scale").endMetadata()
                .withNewStatus().withPhase("Active").endStatus().build());
        FleetSpec.Pool like = spec.pools().stream().filter(FleetSpec.Pool::nvidia).findFirst().orElse(spec.pools().get(0));
        // In one pass each (ObjectStore.createAll): one object at a time, seeding is quadratic in what the store holds.
        List<String> names = new ArrayList<>();
        List<HasMetadata> batch = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            String name = String.format("scale-gpu-%05d", i);
            HasMetadata node = node(like, name, spec.cluster().zones().get(i % spec.cluster().zones().size()));
            node.getMetadata().getLabels().put("acceltriage.io/pool", "scale");
            node.getMetadata().getLabels().put("cloud.google.com/gke-nodepool", "scale");
            batch.add(node);
            names.add(name);
        }
        server.applyAll(batch);
        batch.clear();
        Container worker = new io.fabric8.kubernetes.api.model.ContainerBuilder().withName("worker")
                .withImage("nvcr.io/nvidia/pytorch:24.05-py3").withCommand("torchrun", "train.py")
                .withNewResources().addToRequests("cpu", new Quantity("4")).addToRequests("memory", new Quantity("16Gi"))
                .endResources().build();
        for (int i = 0; i < pods; i++) {
            String rs = "batch-" + (i / 50) + "-" + suffix("scale-rs-" + (i / 50), 10);
            // three hashed characters and two that number the pod within its ReplicaSet: five hashed ones collided at 100,000
            int member = i % 50;
            String pod = rs + "-" + suffix("scale-pod-" + i, 3) + ALPHABET.charAt(member / ALPHABET.length())
                    + ALPHABET.charAt(member % ALPHABET.length());
            batch.add(runningPod("scale", pod, names.get(i % names.size()),
                    Map.of("app", "batch-" + (i / 50), "pod-template-hash", suffix("scale-rs-" + (i / 50), 10)),
                    ownerRef("apps/v1", "ReplicaSet", rs, uid("rs/scale/" + rs)), worker, null, List.of()));
            if (batch.size() == 5_000) { // converted to JSON a batch at a time, not 100,000 trees at once
                server.applyAll(batch);
                batch.clear();
            }
        }
        server.applyAll(batch);
    }

    /** The name suffix a controller would generate, stable for the same seed text. */
    static String suffix(String seed, int length) {
        long h = UUID.nameUUIDFromBytes(seed.getBytes()).getLeastSignificantBits();
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            s.append(ALPHABET.charAt((int) Math.floorMod(h >> (i * 5), (long) ALPHABET.length())));
        }
        return s.toString();
    }

    static String uid(String seed) {
        return UUID.nameUUIDFromBytes(("acceltriage-sandbox/" + seed).getBytes()).toString();
    }

    HasMetadata node(FleetSpec.Pool pool, String name, String zone) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("acceltriage.io/pool", pool.name());
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("cloud.google.com/gke-nodepool", pool.name());
        labels.put("cloud.google.com/machine-family", pool.instanceType().split("-")[0]);
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", "linux");
        labels.put("node.kubernetes.io/instance-type", pool.instanceType());
        labels.put("topology.kubernetes.io/region", spec.cluster().region());
        labels.put("topology.kubernetes.io/zone", zone);
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        Map<String, Quantity> allocatable = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity(pool.cpu()));
        capacity.put("ephemeral-storage", new Quantity("98831908Ki"));
        capacity.put("memory", new Quantity(pool.memory()));
        capacity.put("pods", new Quantity("110"));
        allocatable.put("cpu", new Quantity(pool.allocatableCpu()));
        allocatable.put("ephemeral-storage", new Quantity("47060071478"));
        allocatable.put("memory", new Quantity(pool.allocatableMemory()));
        allocatable.put("pods", new Quantity("110"));
        List<io.fabric8.kubernetes.api.model.Taint> taints = new ArrayList<>();
        FleetSpec.Accelerator a = pool.accelerator();
        if (a != null) {
            capacity.put(a.resource(), new Quantity(String.valueOf(a.count())));
            allocatable.put(a.resource(), new Quantity(String.valueOf(a.count())));
            taints.add(new io.fabric8.kubernetes.api.model.TaintBuilder().withKey(a.resource()).withValue("present")
                    .withEffect("NoSchedule").build());
        }
        if (pool.nvidia()) {
            labels.put("cloud.google.com/gke-accelerator", a.gkeAccelerator());
            labels.put("nvidia.com/cuda.driver.major", spec.cluster().nvidiaDriver().split("\\.")[0]);
            labels.put("nvidia.com/gpu.count", String.valueOf(a.count()));
            labels.put("nvidia.com/gpu.deploy.dcgm-exporter", "true");
            labels.put("nvidia.com/gpu.deploy.device-plugin", "true");
            labels.put("nvidia.com/gpu.memory", String.valueOf(a.memoryMiB()));
            labels.put("nvidia.com/gpu.present", "true");
            labels.put("nvidia.com/gpu.product", a.product());
        }
        if (pool.tpu()) {
            labels.put("cloud.google.com/gke-tpu-accelerator", a.product());
            labels.put("cloud.google.com/gke-tpu-topology", a.topology());
        }
        String[] conditions = {"MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
                "DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
                "PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available",
                "Ready", "KubeletReady", "kubelet is posting ready status"};
        NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).withUid(uid("node/" + name))
                .withCreationTimestamp("2026-11-20T06:00:00Z").withLabels(labels)
                .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                .endMetadata()
                .withNewSpec().withPodCIDR("10.8." + Math.floorMod(name.hashCode(), 250) + ".0/24")
                .withProviderID("gce://acme-ml/" + zone + "/" + name).withTaints(taints).endSpec();
        var status = node.withNewStatus().withCapacity(capacity).withAllocatable(allocatable)
                .addNewAddress().withType("InternalIP").withAddress(internalIp(name)).endAddress()
                .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                .withNewNodeInfo().withArchitecture("amd64").withOperatingSystem("linux")
                .withKubeletVersion(spec.cluster().kubeletVersion()).withKubeProxyVersion(spec.cluster().kubeletVersion())
                .withKernelVersion(spec.cluster().kernel()).withOsImage(spec.cluster().osImage())
                .withContainerRuntimeVersion(spec.cluster().containerRuntime()).withMachineID(uid("machine/" + name)
                        .replace("-", "")).withSystemUUID(uid("system/" + name)).withBootID(uid("boot/" + name))
                .endNodeInfo();
        for (int i = 0; i < conditions.length; i += 3) {
            boolean ready = conditions[i].equals("Ready");
            status.addNewCondition().withType(conditions[i]).withStatus(ready ? "True" : "False")
                    .withReason(conditions[i + 1]).withMessage(conditions[i + 2])
                    .withLastHeartbeatTime("2026-11-30T09:59:40Z").withLastTransitionTime("2026-11-20T06:01:10Z")
                    .endCondition();
        }
        return status.endStatus().build();
    }

    static String internalIp(String node) {
        return "10.128." + Math.floorMod(node.hashCode() >> 8, 250) + "." + (2 + Math.floorMod(node.hashCode(), 250));
    }

    private void gpuOperator() {
        List<String> gpuNodes = spec.pools().stream().filter(FleetSpec.Pool::nvidia)
                .flatMap(p -> p.nodeNames().stream()).toList();
        daemonSet(DEVICE_PLUGIN, DEVICE_PLUGIN_CONTAINER, DEVICE_PLUGIN_IMAGE, gpuNodes.size(),
                "nvidia.com/gpu.deploy.device-plugin");
        revision(DEVICE_PLUGIN, DEVICE_PLUGIN_CONTAINER, DEVICE_PLUGIN_IMAGE, 1, "6b8c7d9f54", STARTED);
        daemonSet(EXPORTER, EXPORTER, "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04", gpuNodes.size(),
                "nvidia.com/gpu.deploy.dcgm-exporter");
        for (String node : gpuNodes) {
            String plugin = DEVICE_PLUGIN + "-" + suffix(DEVICE_PLUGIN + node, 5);
            pod(GPU_OPERATOR, plugin, node, Map.of("app", DEVICE_PLUGIN, "controller-revision-hash", "6b8c7d9f54",
                    "pod-template-generation", "1"), owner("apps/v1", "DaemonSet", GPU_OPERATOR, DEVICE_PLUGIN),
                    daemonPodSpec(new ContainerBuilder().withName(DEVICE_PLUGIN_CONTAINER)
                            .withImage("nvcr.io/nvidia/k8s-device-plugin:v0.17.0").build()), 0);
            server.putLog(GPU_OPERATOR, plugin, DEVICE_PLUGIN_CONTAINER, false, devicePluginLog(node));
            String exporter = EXPORTER + "-" + suffix(EXPORTER + node, 5);
            pod(GPU_OPERATOR, exporter, node, Map.of("app", EXPORTER, "controller-revision-hash", "5f9d8b6c47",
                    "pod-template-generation", "1"), owner("apps/v1", "DaemonSet", GPU_OPERATOR, EXPORTER),
                    daemonPodSpec(new ContainerBuilder().withName(EXPORTER)
                            .withImage("nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04")
                            .addNewPort().withName("metrics").withContainerPort(9400).endPort().build()), 0);
            server.putLog(GPU_OPERATOR, exporter, EXPORTER, false, """
                    time="2026-11-29T08:00:12Z" level=info msg="Starting dcgm-exporter" Version=4.2.3-4.1.3
                    time="2026-11-29T08:00:13Z" level=info msg="DCGM successfully initialized!"
                    time="2026-11-29T08:00:13Z" level=info msg="Collecting DCP Metrics"
                    time="2026-11-29T08:00:13Z" level=info msg="Kubernetes metrics collection enabled!"
                    time="2026-11-29T08:00:14Z" level=info msg="Starting webserver"
                    time="2026-11-29T08:00:14Z" level=info msg="Listening on" address=":9400"
                    """);
        }
    }

    static String devicePluginLog(String node) {
        return """
                I1129 08:00:09.102113       1 main.go:235] "Starting NVIDIA Device Plugin" version=<
                	3c378193
                	commit: 3c378193fcebf6e955f0d65bd6f2aeed099ad8ea
                 >
                I1129 08:00:09.102391       1 main.go:238] Starting FS watcher for /var/lib/kubelet/device-plugins
                I1129 08:00:09.168020       1 main.go:356] Retrieving plugins.
                I1129 08:00:09.842506       1 server.go:195] Starting GRPC server for 'nvidia.com/gpu'
                I1129 08:00:09.843389       1 server.go:139] Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock
                I1129 08:00:09.846807       1 server.go:146] Registered device plugin for 'nvidia.com/gpu' with Kubelet
                """;
    }

    /**
     * A DaemonSet's ControllerRevision, as the controller writes one per template: what the rollout
     * evidence reads. The first is the install; another one is a rollout.
     */
    void revision(String daemonSet, String container, String image, long number, String hash, String created) {
        server.apply(new ControllerRevisionBuilder().withNewMetadata().withName(daemonSet + "-" + hash).withNamespace(GPU_OPERATOR)
                .withUid(uid("cr/" + daemonSet + "/" + number)).withCreationTimestamp(created)
                .addToLabels("app", daemonSet).addToLabels("controller-revision-hash", hash)
                .withOwnerReferences(owner("apps/v1", "DaemonSet", GPU_OPERATOR, daemonSet)).endMetadata()
                .withRevision(number).withData(Map.of("spec", Map.of("template", Map.of("spec", Map.of("containers",
                        List.of(Map.of("name", container, "image", image)))))))
                .build());
    }

    private void daemonSet(String name, String container, String image, int nodes, String nodeLabel) {
        server.apply(new DaemonSetBuilder().withNewMetadata().withName(name).withNamespace(GPU_OPERATOR)
                .withUid(uid("ds/" + GPU_OPERATOR + "/" + name)).addToLabels("app", name)
                .addToLabels("app.kubernetes.io/managed-by", "gpu-operator").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", name).endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
                .withNewSpec().addToNodeSelector(nodeLabel, "true")
                .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule")
                .endToleration()
                .addNewContainer().withName(container).withImage(image).endContainer().endSpec().endTemplate()
                .withNewUpdateStrategy().withType("RollingUpdate").withNewRollingUpdate()
                .withMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(1)).endRollingUpdate().endUpdateStrategy()
                .endSpec()
                .withNewStatus().withDesiredNumberScheduled(nodes).withCurrentNumberScheduled(nodes)
                .withNumberReady(nodes).withNumberAvailable(nodes).withUpdatedNumberScheduled(nodes)
                .withNumberMisscheduled(0).withObservedGeneration(1L).endStatus().build());
    }

    private void coreDns() {
        deploymentWithReplicaSet("kube-system", "coredns", "5d78c9869d", 2, Map.of("k8s-app", "kube-dns"),
                new ContainerBuilder().withName("coredns").withImage("registry.k8s.io/coredns/coredns:v1.11.3")
                        .build(), null);
        List<String> system = spec.pools().get(0).nodeNames();
        for (int i = 0; i < 2; i++) {
            String name = "coredns-5d78c9869d-" + suffix("coredns" + i, 5);
            pod("kube-system", name, system.get(i % system.size()),
                    Map.of("k8s-app", "kube-dns", "pod-template-hash", "5d78c9869d"),
                    owner("apps/v1", "ReplicaSet", "kube-system", "coredns-5d78c9869d"),
                    templateSpec(new ContainerBuilder().withName("coredns")
                            .withImage("registry.k8s.io/coredns/coredns:v1.11.3").build(), null), 0);
        }
    }

    private void vllm() {
        Container vllm = new ContainerBuilder().withName("vllm").withImage("vllm/vllm-openai:v0.11.0")
                .withArgs("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory-utilization", "0.90")
                .addNewPort().withName("http").withContainerPort(8000).endPort()
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1"))
                .addToRequests("nvidia.com/gpu", new Quantity("1")).endResources().build();
        deploymentWithReplicaSet("serve", "vllm-llama", "7d9f5c6b8", 3, Map.of("app", "vllm-llama"), vllm,
                "a100-serve");
        for (int i = 0; i < 3; i++) {
            String name = "vllm-llama-7d9f5c6b8-" + suffix("vllm" + i, 5);
            pod("serve", name, "gpu-a100-0" + (3 + i), Map.of("app", "vllm-llama", "pod-template-hash", "7d9f5c6b8"),
                    owner("apps/v1", "ReplicaSet", "serve", "vllm-llama-7d9f5c6b8"), templateSpec(vllm, "a100-serve"), 1);
            server.putLog("serve", name, "vllm", false, """
                    INFO 11-29 08:01:02 api_server.py:212] vLLM API server version 0.11.0
                    INFO 11-29 08:01:40 model_runner.py:1072] Loading model weights took 14.99 GB
                    INFO 11-29 08:02:03 gpu_executor.py:122] # GPU blocks: 27823, # CPU blocks: 2048
                    INFO 11-29 08:02:05 launcher.py:19] Available routes are: /v1/chat/completions, /v1/completions
                    INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
                    """);
        }
        server.apply(new PodDisruptionBudgetBuilder().withNewMetadata().withName("vllm-llama").withNamespace("serve")
                .withUid(uid("pdb/vllm-llama")).withGeneration(1L).endMetadata()
                .withNewSpec().withMinAvailable(new IntOrString(2)).withNewSelector().addToMatchLabels("app", "vllm-llama")
                .endSelector().endSpec().build());
    }

    private void deploymentWithReplicaSet(String ns, String name, String hash, int replicas, Map<String, String> labels,
            Container container, String pool) {
        PodSpec template = templateSpec(container, pool);
        server.apply(new DeploymentBuilder().withNewMetadata().withName(name).withNamespace(ns)
                .withUid(uid("deploy/" + ns + "/" + name)).withLabels(labels).withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(labels).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata().withSpec(template).endTemplate()
                .endSpec()
                .withNewStatus().withReplicas(replicas).withReadyReplicas(replicas).withAvailableReplicas(replicas)
                .withUpdatedReplicas(replicas).withObservedGeneration(1L).endStatus().build());
        Map<String, String> rsLabels = new LinkedHashMap<>(labels);
        rsLabels.put("pod-template-hash", hash);
        server.apply(new ReplicaSetBuilder().withNewMetadata().withName(name + "-" + hash).withNamespace(ns)
                .withUid(uid("rs/" + ns + "/" + name + "-" + hash)).withLabels(rsLabels)
                .withOwnerReferences(ownerRef("apps/v1", "Deployment", name, uid("deploy/" + ns + "/" + name)))
                .endMetadata()
                .withNewSpec().withReplicas(replicas).withNewSelector().withMatchLabels(rsLabels).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(rsLabels).endMetadata().withSpec(template).endTemplate()
                .endSpec()
                .withNewStatus().withReplicas(replicas).withReadyReplicas(replicas).withAvailableReplicas(replicas)
                .withFullyLabeledReplicas(replicas).withObservedGeneration(1L).endStatus().build());
    }

    private void pretrainJobSet() {
        String jobSet = "llm-pretrain";
        String jobName = jobSet + "-workers-0";
        String jobSetUid = uid("jobset/ml/" + jobSet);
        Container trainer = new ContainerBuilder().withName("trainer")
                .withImage("us-docker.pkg.dev/acme-ml/train/llm-pretrain:2026.11.3")
                .withCommand("torchrun", "--nnodes=4", "--nproc-per-node=8", "train.py")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8"))
                .addToRequests("nvidia.com/gpu", new Quantity("8")).endResources().build();
        Map<String, Object> podTemplate = Map.of("metadata", Map.of("labels", Map.of("app", jobSet)),
                "spec", ObjectStore.JSON.convertValue(templateSpec(trainer, "h100-train", "OnFailure"), Map.class));
        server.apply(Map.of("apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet",
                "metadata", Map.of("name", jobSet, "namespace", "ml", "uid", jobSetUid, "generation", 1,
                        "labels", Map.of("team", "foundation-models"),
                        // the trainer's last checkpoint (SimulatedTrainer writes the next ones)
                        "annotations", Map.of(SimulatedTrainer.ANNOTATION, java.time.Instant.now().minus(java.time.Duration.ofMinutes(20))
                                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString())),
                "spec", Map.of(
                        "failurePolicy", Map.of("maxRestarts", 3),
                        "successPolicy", Map.of("operator", "All"),
                        "startupPolicy", Map.of("startupPolicyOrder", "AnyOrder"),
                        "network", Map.of("enableDNSHostnames", true, "subdomain", jobSet),
                        "replicatedJobs", List.of(Map.of("name", "workers", "replicas", 1,
                                "template", Map.of("spec", Map.of("parallelism", 4, "completions", 4,
                                        "completionMode", "Indexed", "backoffLimit", 0,
                                        "template", podTemplate))))),
                "status", Map.of("restarts", 0, "terminalState", "",
                        "replicatedJobsStatus", List.of(Map.of("name", "workers", "ready", 1, "active", 1,
                                "succeeded", 0, "failed", 0, "suspended", 0)))));
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("jobset.sigs.k8s.io/jobset-name", jobSet);
        labels.put("jobset.sigs.k8s.io/replicatedjob-name", "workers");
        labels.put("jobset.sigs.k8s.io/replicatedjob-replicas", "1");
        labels.put("jobset.sigs.k8s.io/job-index", "0");
        labels.put("jobset.sigs.k8s.io/job-key", suffix("job-key" + jobName, 10));
        labels.put("jobset.sigs.k8s.io/restart-attempt", "0");
        String jobUid = uid("job/ml/" + jobName);
        server.apply(new JobBuilder().withNewMetadata().withName(jobName).withNamespace("ml").withUid(jobUid)
                .withLabels(labels).withOwnerReferences(ownerRef("jobset.x-k8s.io/v1alpha2", "JobSet", jobSet, jobSetUid))
                .endMetadata()
                .withNewSpec().withParallelism(4).withCompletions(4).withCompletionMode("Indexed").withBackoffLimit(0)
                .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata()
                .withSpec(templateSpec(trainer, "h100-train", "OnFailure")).endTemplate().endSpec()
                .withNewStatus().withActive(4).withReady(4).withSucceeded(0).withFailed(0)
                .withStartTime(STARTED).endStatus().build());
        for (int i = 0; i < 4; i++) {
            Map<String, String> podLabels = new LinkedHashMap<>(labels);
            podLabels.put("batch.kubernetes.io/controller-uid", jobUid);
            podLabels.put("batch.kubernetes.io/job-completion-index", String.valueOf(i));
            podLabels.put("batch.kubernetes.io/job-name", jobName);
            podLabels.put("controller-uid", jobUid);
            podLabels.put("job-name", jobName);
            String name = jobName + "-" + i + "-" + suffix("pretrain" + i, 5);
            pod("ml", name, "gpu-h100-0" + (1 + i), podLabels, ownerRef("batch/v1", "Job", jobName, jobUid),
                    templateSpec(trainer, "h100-train", "OnFailure"), 8);
            server.putLog("ml", name, "trainer", false, "[rank" + (i * 8) + "]: step 48210 | loss 1.8342 | "
                    + "lr 2.4e-04 | tokens/s/gpu 9712 | mfu 0.52\n[rank" + (i * 8) + "]: step 48220 | loss 1.8297 | "
                    + "lr 2.4e-04 | tokens/s/gpu 9698 | mfu 0.52\n");
        }
    }

    private void research() {
        Container train = new ContainerBuilder().withName("train").withImage("ghcr.io/acme/ft:2.3")
                .withCommand("python", "/app/train.py", "--batch-size", "64")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().build();
        String jobUid = uid("job/research/lora-ft");
        server.apply(new JobBuilder().withNewMetadata().withName("lora-ft").withNamespace("research").withUid(jobUid)
                .endMetadata().withNewSpec().withBackoffLimit(6).withNewTemplate().withSpec(templateSpec(train,
                        "a100-serve", "OnFailure")).endTemplate().endSpec()
                .withNewStatus().withActive(1).withReady(1).withFailed(0).withStartTime(STARTED).endStatus().build());
        String ft = "lora-ft-" + suffix("lora-ft", 5);
        pod("research", ft, "gpu-a100-08", Map.of("job-name", "lora-ft", "batch.kubernetes.io/job-name", "lora-ft",
                "controller-uid", jobUid), ownerRef("batch/v1", "Job", "lora-ft", jobUid),
                templateSpec(train, "a100-serve", "OnFailure"), 1);
        server.putLog("research", ft, "train", false, "Loading checkpoint shards: 100%|██████████| 4/4\n"
                + "step 120 | batch_size=32 seq_len=4096 | loss 0.912\n");

        Container notebook = new ContainerBuilder().withName("notebook")
                .withImage("quay.io/jupyter/pytorch-notebook:cuda12-2026-11-24")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().build();
        server.apply(new StatefulSetBuilder().withNewMetadata().withName("jupyter-alice").withNamespace("research")
                .withUid(uid("sts/research/jupyter-alice")).endMetadata()
                .withNewSpec().withReplicas(1).withServiceName("jupyter-alice").withNewSelector()
                .addToMatchLabels("notebook-name", "jupyter-alice").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("notebook-name", "jupyter-alice").endMetadata()
                .withSpec(templateSpec(notebook, "a100-serve")).endTemplate().endSpec()
                .withNewStatus().withReplicas(1).withReadyReplicas(1).withAvailableReplicas(1).endStatus().build());
        pod("research", "jupyter-alice-0", "gpu-a100-06", Map.of("notebook-name", "jupyter-alice",
                "statefulset.kubernetes.io/pod-name", "jupyter-alice-0"),
                owner("apps/v1", "StatefulSet", "research", "jupyter-alice"), templateSpec(notebook, "a100-serve"), 1);
    }

    private void tpuEval() {
        Container eval = new ContainerBuilder().withName("eval").withImage("us-docker.pkg.dev/acme-ml/eval/gemma-eval:0.9")
                .withNewResources().addToLimits("google.com/tpu", new Quantity("4")).endResources().build();
        String jobUid = uid("job/ml/gemma-eval");
        server.apply(new JobBuilder().withNewMetadata().withName("gemma-eval").withNamespace("ml").withUid(jobUid)
                .endMetadata().withNewSpec().withBackoffLimit(2).withNewTemplate().withSpec(templateSpec(eval,
                        "tpu-v5e", "OnFailure")).endTemplate().endSpec()
                .withNewStatus().withActive(1).withReady(1).withStartTime(STARTED).endStatus().build());
        pod("ml", "gemma-eval-" + suffix("gemma-eval", 5), "tpu-v5e-01", Map.of("job-name", "gemma-eval",
                "controller-uid", jobUid), ownerRef("batch/v1", "Job", "gemma-eval", jobUid),
                templateSpec(eval, "tpu-v5e", "OnFailure"), 4);
    }

    /** A pod template for a long-running workload (Deployment, StatefulSet): restartPolicy Always. */
    private PodSpec templateSpec(Container container, String pool) {
        return templateSpec(container, pool, "Always");
    }

    /** A pod template pinned to a pool, tolerating its accelerator taint. */
    private PodSpec templateSpec(Container container, String pool, String restartPolicy) {
        PodSpecBuilder spec = new PodSpecBuilder().withContainers(container).withRestartPolicy(restartPolicy);
        if (pool != null) {
            spec.addToNodeSelector("acceltriage.io/pool", pool);
            FleetSpec.Accelerator a = spec(pool).accelerator();
            if (a != null) {
                spec.addToTolerations(new TolerationBuilder().withKey(a.resource()).withOperator("Exists")
                        .withEffect("NoSchedule").build());
            }
        }
        return spec.build();
    }

    private FleetSpec.Pool spec(String pool) {
        return spec.pools().stream().filter(p -> p.name().equals(pool)).findFirst().orElseThrow();
    }

    /** A controller reference to an object this seed created, whose uid it can therefore compute. */
    private static OwnerReference owner(String apiVersion, String kind, String namespace, String name) {
        String prefix = switch (kind) {
            case "DaemonSet" -> "ds/";
            case "ReplicaSet" -> "rs/";
            case "StatefulSet" -> "sts/";
            default -> throw new IllegalArgumentException("no seeded owner kind " + kind);
        };
        return ownerRef(apiVersion, kind, name, uid(prefix + namespace + "/" + name));
    }

    static OwnerReference ownerRef(String apiVersion, String kind, String name, String uid) {
        return new OwnerReferenceBuilder().withApiVersion(apiVersion).withKind(kind).withName(name).withUid(uid)
                .withController(true).withBlockOwnerDeletion(true).build();
    }

    /**
     * A running, ready pod. When it asks for accelerators, the node's next free devices are allocated to it
     * and show in its allocatedResourcesStatus, as the kubelet reports them with ResourceHealthStatus on.
     */
    private void pod(String ns, String name, String node, Map<String, String> labels, OwnerReference owner,
            PodSpec template, int deviceCount) {
        server.apply(runningPod(ns, name, node, labels, owner, template.getContainers().get(0), template,
                allocate(node, deviceCount)));
    }

    /** A DaemonSet pod's spec: on every GPU node despite the GPU taint. */
    private static PodSpec daemonPodSpec(Container container) {
        return new PodSpecBuilder().withContainers(container).withRestartPolicy("Always")
                .addToTolerations(new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists")
                        .withEffect("NoSchedule").build())
                .build();
    }

    List<String> allocate(String node, int count) {
        List<String> ids = new ArrayList<>();
        if (count == 0) {
            return ids;
        }
        int first = nextDevice.getOrDefault(node, 0);
        for (int i = first; i < first + count; i++) {
            ids.add(devices.device(node, i).id());
            devices.markBusy(node, i);
        }
        nextDevice.put(node, first + count);
        return ids;
    }

    static Pod runningPod(String ns, String name, String node, Map<String, String> labels, OwnerReference owner,
            Container container, PodSpec template, List<String> deviceIds) {
        PodSpec spec = new PodSpecBuilder(template != null ? template : new PodSpecBuilder().withContainers(container)
                .withRestartPolicy("Always").build())
                .withNodeName(node).withSchedulerName("default-scheduler").withServiceAccountName("default")
                .withTerminationGracePeriodSeconds(30L)
                .addToTolerations(notReadyToleration("node.kubernetes.io/not-ready"),
                        notReadyToleration("node.kubernetes.io/unreachable"))
                .build();
        ContainerStatusBuilder status = new ContainerStatusBuilder().withName(container.getName())
                .withImage(container.getImage()).withImageID(container.getImage() + "@sha256:" + suffix(name, 12))
                .withContainerID("containerd://" + UUID.nameUUIDFromBytes(name.getBytes()).toString().replace("-", ""))
                .withReady(true).withStarted(true).withRestartCount(0)
                .withNewState().withNewRunning().withStartedAt(STARTED).endRunning().endState()
                .withNewLastState().endLastState();
        String resource = container.getResources() == null ? null
                : container.getResources().getLimits() == null ? null
                        : container.getResources().getLimits().keySet().stream()
                                .filter(k -> k.equals("nvidia.com/gpu") || k.equals("google.com/tpu")).findFirst()
                                .orElse(null);
        if (resource != null && !deviceIds.isEmpty()) {
            var allocated = status.addNewAllocatedResourcesStatus().withName(resource);
            for (String id : deviceIds) {
                allocated.addNewResource().withResourceID(id).withHealth("Healthy").endResource();
            }
            allocated.endAllocatedResourcesStatus();
        }
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(ns).withUid(uid("pod/" + ns
                + "/" + name)).withCreationTimestamp(STARTED).withLabels(labels)
                .withOwnerReferences(owner == null ? List.of() : List.of(owner)).endMetadata()
                .withSpec(spec)
                .withNewStatus().withPhase("Running").withQosClass("BestEffort").withHostIP(internalIp(node))
                .withPodIP("10.8." + Math.floorMod(node.hashCode(), 250) + "." + (2 + Math.floorMod(name.hashCode(), 250)))
                .withStartTime(STARTED)
                .addNewCondition().withType("PodReadyToStartContainers").withStatus("True")
                .withLastTransitionTime(STARTED).endCondition()
                .addNewCondition().withType("Initialized").withStatus("True").withLastTransitionTime(STARTED).endCondition()
                .addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime(STARTED).endCondition()
                .addNewCondition().withType("ContainersReady").withStatus("True").withLastTransitionTime(STARTED)
                .endCondition()
                .addNewCondition().withType("PodScheduled").withStatus("True").withLastTransitionTime(STARTED).endCondition()
                .withContainerStatuses(status.build()).endStatus();
        return pod.build();
    }

    private static Toleration notReadyToleration(String key) {
        return new TolerationBuilder().withKey(key).withOperator("Exists").withEffect("NoExecute")
                .withTolerationSeconds(300L).build();
    }
}
