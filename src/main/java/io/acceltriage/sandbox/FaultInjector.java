package io.acceltriage.sandbox;

import io.acceltriage.config.KubernetesNames;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceHealth;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Changes the simulated world the way a real fault would (device telemetry, device-plugin allocatable,
 * pod status, container logs, events), then returns the alert a real Prometheus and Alertmanager would
 * send about it.
 */
public final class FaultInjector {

    private final SimulatedApiServer server;
    private final DeviceState devices;
    private final FleetSeed seed;
    private final XidEffects xids;
    private final AlertRules rules;
    private final Clock clock;

    FaultInjector(SimulatedApiServer server, DeviceState devices, FleetSeed seed, XidEffects xids, AlertRules rules,
            Clock clock) {
        this.server = server;
        this.devices = devices;
        this.seed = seed;
        this.xids = xids;
        this.rules = rules;
        this.clock = clock;
    }

    public synchronized FiredAlert inject(Fault fault) {
        if (fault == null) {
            throw new IllegalArgumentException("a fault is required, e.g. {\"kind\":\"xid\",\"node\":\"gpu-h100-03\","
                    + "\"gpu\":2,\"xid\":79}");
        }
        FaultKind kind = FaultKind.parse(fault.kind());
        return switch (kind) {
            case XID -> xid(fault);
            case DBE_ECC -> dbeEcc(fault);
            case ROW_REMAP_FAILURE -> rowRemapFailure(fault);
            case RETIRED_PAGES -> retiredPages(fault);
            case DEVICE_PLUGIN_CRASH -> devicePluginCrash(fault);
            case DEVICE_PLUGIN_ROLLOUT -> devicePluginRollout(fault);
            case NVML_MISMATCH -> nvmlMismatch(fault);
            case CUDA_OOM -> cudaOom(fault);
            case NODE_NOT_READY -> nodeNotReady(fault);
        };
    }

    /** Puts back the seeded world: objects, logs, device state. */
    public synchronized void reset() {
        server.store().clear();
        server.clearLogs();
        devices.reset();
        seed.seed();
    }

    private FiredAlert xid(Fault fault) {
        String node = gpuNode(fault, "xid");
        int gpu = gpu(fault, node);
        if (fault.xid() == null || fault.xid() <= 0) {
            throw new IllegalArgumentException("xid is required for kind xid: the XID code as a positive integer, "
                    + "e.g. {\"kind\":\"xid\",\"node\":\"" + node + "\",\"gpu\":" + gpu + ",\"xid\":79}");
        }
        XidEffects.Effect effect = applyXid(node, gpu, fault.xid());
        Map<String, String> labels = labels(effect.alert(), effect.severity());
        labels.put("node", node);
        labels.put("gpu", String.valueOf(gpu));
        labels.put("xid", String.valueOf(fault.xid()));
        return rules.fire(labels, Map.of("meaning", effect.meaning()));
    }

    private FiredAlert dbeEcc(Fault fault) {
        String node = gpuNode(fault, "dbe-ecc");
        int gpu = gpu(fault, node);
        devices.update(node, gpu, d -> d.plus("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1).plus("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 1)
                .plus("DCGM_FI_DEV_RETIRED_PENDING", 1));
        applyXid(node, gpu, 48);
        Map<String, String> labels = labels("GpuDoubleBitEccError", "critical");
        labels.put("node", node);
        labels.put("gpu", String.valueOf(gpu));
        return rules.fire(labels, Map.of());
    }

    private FiredAlert rowRemapFailure(Fault fault) {
        String node = gpuNode(fault, "row-remap-failure");
        int gpu = gpu(fault, node);
        devices.update(node, gpu, d -> d.with("DCGM_FI_DEV_ROW_REMAP_FAILURE", 1)
                .plus("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 1)
                .plus("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1).plus("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 1));
        applyXid(node, gpu, 64);
        Map<String, String> labels = labels("GpuRowRemapFailure", "critical");
        labels.put("node", node);
        labels.put("gpu", String.valueOf(gpu));
        return rules.fire(labels, Map.of());
    }

    /**
     * A GPU (of the older, page-retiring kind) at the retirement limit: 58 pages retired for single-bit and 6 for
     * double-bit errors, none pending, no fresh XID. It still computes correctly; it is due for replacement.
     */
    private FiredAlert retiredPages(Fault fault) {
        String node = gpuNode(fault, "retired-pages");
        int gpu = gpu(fault, node);
        devices.update(node, gpu, d -> d.with("DCGM_FI_DEV_RETIRED_SBE", 58).with("DCGM_FI_DEV_RETIRED_DBE", 6));
        Map<String, String> labels = labels("GpuRetiredPagesHigh", "warning");
        labels.put("node", node);
        labels.put("gpu", String.valueOf(gpu));
        return rules.fire(labels, Map.of());
    }

    private FiredAlert devicePluginCrash(Fault fault) {
        String node = gpuNode(fault, "device-plugin-crash");
        String log = FleetSeed.devicePluginLog(node).lines().limit(1).findFirst().orElse("") + "\n"
                + "E1130 " + time() + "       1 main.go:132] error starting plugins: error creating plugin manager: "
                + "unable to load config file /config/config.yaml: yaml: line 7: did not find expected key\n";
        crashDaemonPod(node, FleetSeed.DEVICE_PLUGIN, FleetSeed.DEVICE_PLUGIN_CONTAINER, log);
        advertiseGpus(node, 0, 0);
        pendingValidator(node);
        return devicePluginAlert(node);
    }

    /**
     * A device-plugin rollout gone wrong, one node per injection as a RollingUpdate goes: the DaemonSet's
     * template moves to the new image (its ControllerRevision 2 stamped at the first injection), the
     * node's plugin pod runs the new revision and crash-loops on a CDI spec error, and the node's GPUs
     * are no longer advertised. Injected on more nodes than the storm threshold, it is a fleet incident.
     */
    private FiredAlert devicePluginRollout(Fault fault) {
        String node = gpuNode(fault, "device-plugin-rollout");
        var ds = client().apps().daemonSets().inNamespace(FleetSeed.GPU_OPERATOR).withName(FleetSeed.DEVICE_PLUGIN);
        if (client().apps().controllerRevisions().inNamespace(FleetSeed.GPU_OPERATOR)
                .withName(FleetSeed.DEVICE_PLUGIN + "-" + ROLLOUT_HASH).get() == null) {
            seed.revision(FleetSeed.DEVICE_PLUGIN, FleetSeed.DEVICE_PLUGIN_CONTAINER, ROLLOUT_IMAGE, 2, ROLLOUT_HASH, now());
            ds.edit(d -> new io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder(d).editSpec().editTemplate().editSpec()
                    .editFirstContainer().withImage(ROLLOUT_IMAGE).endContainer().endSpec().endTemplate().endSpec().build());
        }
        Pod plugin = podsOn(node).stream().filter(p -> p.getMetadata().getNamespace().equals(FleetSeed.GPU_OPERATOR)
                && p.getMetadata().getName().startsWith(FleetSeed.DEVICE_PLUGIN + "-")).findFirst()
                .orElseThrow(() -> new IllegalStateException(FleetSeed.DEVICE_PLUGIN + " has no pod on " + node));
        client().pods().inNamespace(FleetSeed.GPU_OPERATOR).withName(plugin.getMetadata().getName()).edit(p -> new PodBuilder(p)
                .editMetadata().addToLabels("controller-revision-hash", ROLLOUT_HASH).addToLabels("pod-template-generation", "2")
                .endMetadata().editSpec().editFirstContainer().withImage(ROLLOUT_IMAGE).endContainer().endSpec().build());
        crashDaemonPod(node, FleetSeed.DEVICE_PLUGIN, FleetSeed.DEVICE_PLUGIN_CONTAINER,
                "I1130 " + time() + "       1 main.go:235] \"Starting NVIDIA Device Plugin\" version=<\n"
                        + "E1130 " + time() + "       1 main.go:132] error starting plugins: error creating plugin manager: "
                        + "unable to create cdi spec file: failed to get CDI spec: failed to create discoverer for common "
                        + "entities: failed to create discoverer for driver files: failed to locate libcuda.so\n");
        advertiseGpus(node, 0, 0);
        return devicePluginAlert(node);
    }

    static final String ROLLOUT_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.18.0";
    private static final String ROLLOUT_HASH = "7c9f6d8b45";

    private FiredAlert nvmlMismatch(Fault fault) {
        String node = gpuNode(fault, "nvml-mismatch");
        crashDaemonPod(node, FleetSeed.DEVICE_PLUGIN, FleetSeed.DEVICE_PLUGIN_CONTAINER,
                "I1130 " + time() + "       1 main.go:235] \"Starting NVIDIA Device Plugin\" version=<\n"
                        + "E1130 " + time() + "       1 factory.go:112] Failed to initialize NVML: Driver/library "
                        + "version mismatch.\nE1130 " + time() + "       1 factory.go:113] If this is a GPU node, did "
                        + "you set the docker default runtime to `nvidia`?\nE1130 " + time() + "       1 main.go:132] "
                        + "error starting plugins: error creating plugin manager: unable to create plugin manager: "
                        + "nvml init failed: Driver/library version mismatch\n");
        crashDaemonPod(node, FleetSeed.EXPORTER, FleetSeed.EXPORTER,
                "time=\"" + clock.instant().truncatedTo(ChronoUnit.SECONDS) + "\" level=info msg=\"Starting "
                        + "dcgm-exporter\" Version=4.2.3-4.1.3\ntime=\"" + clock.instant().truncatedTo(ChronoUnit.SECONDS)
                        + "\" level=fatal msg=\"Error starting nv-hostengine: Failed to initialize NVML: "
                        + "Driver/library version mismatch\"\n");
        devices.setExporterUp(node, false);
        advertiseGpus(node, 0, 0);
        return devicePluginAlert(node);
    }


    private FiredAlert cudaOom(Fault fault) {
        String ref = fault.pod();
        if (ref == null || !ref.contains("/")) {
            throw new IllegalArgumentException("pod is required for kind cuda-oom, as \"namespace/name\" of a pod "
                    + "that holds a GPU, e.g. {\"kind\":\"cuda-oom\",\"pod\":\"" + examplePod() + "\"}");
        }
        String namespace = ref.substring(0, ref.indexOf('/'));
        String name = ref.substring(ref.indexOf('/') + 1);
        // Checked here: the API server answers a malformed name with an error, not with "no such pod".
        if (!KubernetesNames.isNamespace(namespace) || !KubernetesNames.isName(name)) {
            throw new IllegalArgumentException("pod \"" + (ref.length() > 80 ? ref.substring(0, 80) + "…" : ref)
                    + "\" is not a Kubernetes \"namespace/name\"; pods that hold a GPU: " + gpuPods());
        }
        Pod pod = client().pods().inNamespace(namespace).withName(name).get();
        if (pod == null) {
            throw new IllegalArgumentException("pod " + ref + " does not exist; pods that hold a GPU: " + gpuPods());
        }
        String node = pod.getSpec().getNodeName();
        Optional<ContainerStatus> holder = pod.getStatus().getContainerStatuses().stream()
                .filter(c -> !gpuIds(c).isEmpty()).findFirst();
        if (holder.isEmpty() || !devices.hasDevices(node) || !devices.pool(node).nvidia()) {
            throw new IllegalArgumentException("pod " + ref + " holds no NVIDIA GPU; pods that do: " + gpuPods());
        }
        String container = holder.get().getName();
        for (String id : gpuIds(holder.get())) {
            for (DeviceState.Device d : devices.devices(node)) {
                if (d.id().equals(id)) {
                    devices.update(node, d.index(), g -> g.with("DCGM_FI_DEV_FB_USED",
                            g.memoryMiB() - g.reservedMiB() - 389));
                }
            }
        }
        crash(pod, container, 1, """
                Loading checkpoint shards: 100%|██████████| 4/4
                step 0 | batch_size=64 seq_len=4096
                Traceback (most recent call last):
                  File "/app/train.py", line 211, in <module>
                    loss.backward()
                  File "/usr/local/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward
                    torch.autograd.backward(
                torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB. GPU 0 has a total capacity \
                of 79.15 GiB of which 3.12 GiB is free. Process 2841 has 76.02 GiB memory in use. Of the allocated \
                memory 71.33 GiB is allocated by PyTorch, and 3.94 GiB is reserved by PyTorch but unallocated.
                """);
        Map<String, String> labels = labels("KubePodCrashLooping", "warning");
        labels.put("namespace", namespace);
        labels.put("pod", name);
        labels.put("container", container);
        return rules.fire(labels, Map.of());
    }

    private FiredAlert nodeNotReady(Fault fault) {
        String node = knownNode(fault, "node-not-ready");
        String now = now();
        client().nodes().withName(node).edit(n -> {
            NodeBuilder b = new NodeBuilder(n);
            List<NodeCondition> conditions = n.getStatus().getConditions().stream().map(c -> {
                c.setStatus("Unknown");
                c.setReason("NodeStatusUnknown");
                c.setMessage("Kubelet stopped posting node status.");
                c.setLastTransitionTime(now);
                return c;
            }).toList();
            return b.editStatus().withConditions(conditions).endStatus().editSpec()
                    .addToTaints(new TaintBuilder().withKey("node.kubernetes.io/unreachable").withEffect("NoSchedule")
                            .withTimeAdded(now).build())
                    .addToTaints(new TaintBuilder().withKey("node.kubernetes.io/unreachable").withEffect("NoExecute")
                            .withTimeAdded(now).build())
                    .endSpec().build();
        });
        // the node lifecycle controller marks the node's pods not ready
        for (Pod pod : podsOn(node)) {
            client().pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
                    .edit(p -> new PodBuilder(p).editStatus().withConditions(p.getStatus().getConditions().stream()
                            .map(c -> c.getType().equals("Ready") ? withStatus(c, "False", "NodeNotReady", now) : c)
                            .toList()).endStatus().build());
        }
        devices.setExporterUp(node, false);
        server.dispatcher().budgets().refresh(null);
        Map<String, String> labels = labels("KubeNodeNotReady", "warning");
        labels.put("node", node);
        return rules.fire(labels, Map.of());
    }

    /** The XID's effects from the data file; returns the effect for the alert. */
    private XidEffects.Effect applyXid(String node, int gpu, int xid) {
        XidEffects.Effect effect = xids.of(xid);
        devices.update(node, gpu, d -> d.with("DCGM_FI_DEV_XID_ERRORS", xid));
        if (effect.telemetryLost()) {
            devices.update(node, gpu, d -> d.with("DCGM_FI_DEV_GPU_TEMP", 0).with("DCGM_FI_DEV_MEMORY_TEMP", 0)
                    .with("DCGM_FI_DEV_GPU_UTIL", 0).with("DCGM_FI_DEV_MEM_COPY_UTIL", 0)
                    .with("DCGM_FI_DEV_POWER_USAGE", 0).with("DCGM_FI_DEV_SM_CLOCK", 0).with("DCGM_FI_DEV_MEM_CLOCK", 0));
        }
        DeviceState.Device device = devices.device(node, gpu);
        Optional<Pod> holder = podsOn(node).stream().filter(p -> holds(p, device.id())).findFirst();
        if (effect.gpuUnhealthy() && devices.markUnhealthy(node, gpu)) {
            int count = devices.devices(node).size();
            advertiseGpus(node, count, count - devices.unhealthyCount(node));
            holder.ifPresent(p -> markDeviceUnhealthy(p, device.id()));
        }
        if (effect.crashesWorkload() && holder.isPresent()) {
            Pod pod = client().pods().inNamespace(holder.get().getMetadata().getNamespace())
                    .withName(holder.get().getMetadata().getName()).get();
            String container = pod.getStatus().getContainerStatuses().stream()
                    .filter(c -> gpuIds(c).contains(device.id())).findFirst().orElseThrow().getName();
            crash(pod, container, effect.exitCode(), effect.log().replace("{pciBusId}", device.pciBusId())
                    .replace("{gpu}", String.valueOf(gpu)));
        }
        return effect;
    }

    private void markDeviceUnhealthy(Pod pod, String id) {
        client().pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).edit(p -> {
            for (ContainerStatus c : p.getStatus().getContainerStatuses()) {
                for (ResourceStatus r : Optional.ofNullable(c.getAllocatedResourcesStatus()).orElse(List.of())) {
                    for (ResourceHealth h : r.getResources()) {
                        if (h.getResourceID().equals(id)) {
                            h.setHealth("Unhealthy");
                        }
                    }
                }
            }
            return p;
        });
    }

    /** The container died and the kubelet backs off restarting it: status, logs and the BackOff event. */
    private void crash(Pod pod, String container, int exitCode, String log) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String now = now();
        String started = clock.instant().minusSeconds(75).truncatedTo(ChronoUnit.SECONDS).toString();
        client().pods().inNamespace(ns).withName(name).edit(p -> {
            List<ContainerStatus> statuses = p.getStatus().getContainerStatuses().stream().map(c -> {
                if (!c.getName().equals(container)) {
                    return c;
                }
                int restarts = c.getRestartCount() == null ? 0 : c.getRestartCount();
                return new ContainerStatusBuilder(c).withReady(false).withStarted(false).withRestartCount(restarts + 3)
                        .withNewState().withNewWaiting().withReason("CrashLoopBackOff")
                        .withMessage("back-off 40s restarting failed container=" + container + " pod=" + name + "_" + ns
                                + "(" + p.getMetadata().getUid() + ")").endWaiting().endState()
                        .withNewLastState().withNewTerminated().withExitCode(exitCode).withReason("Error")
                        .withStartedAt(started).withFinishedAt(now).withContainerID(c.getContainerID())
                        .endTerminated().endLastState().build();
            }).toList();
            List<PodCondition> conditions = p.getStatus().getConditions().stream()
                    .map(c -> c.getType().equals("Ready") || c.getType().equals("ContainersReady")
                            ? withStatus(c, "False", "ContainersNotReady", now) : c)
                    .toList();
            conditions.stream().filter(c -> c.getStatus().equals("False"))
                    .forEach(c -> c.setMessage("containers with unready status: [" + container + "]"));
            return new PodBuilder(p).editStatus().withContainerStatuses(statuses).withConditions(conditions).endStatus()
                    .build();
        });
        server.putLog(ns, name, container, true, log);
        // while the container waits to restart, the kubelet serves the last instance's log as the current one
        server.putLog(ns, name, container, false, log);
        event(ns, "Pod", name, pod.getMetadata().getUid(), "spec.containers{" + container + "}", "Warning", "BackOff",
                "Back-off restarting failed container " + container + " in pod " + name + "_" + ns + "("
                        + pod.getMetadata().getUid() + ")", "kubelet", pod.getSpec().getNodeName(), 3);
        server.dispatcher().budgets().refresh(ns);
    }

    private void crashDaemonPod(String node, String daemonSet, String container, String log) {
        Pod pod = podsOn(node).stream().filter(p -> p.getMetadata().getNamespace().equals(FleetSeed.GPU_OPERATOR)
                && p.getMetadata().getName().startsWith(daemonSet + "-")).findFirst()
                .orElseThrow(() -> new IllegalStateException(daemonSet + " has no pod on " + node));
        crash(pod, container, 1, log);
    }

    private void advertiseGpus(String node, int capacity, int allocatable) {
        client().nodes().withName(node).edit(n -> new NodeBuilder(n).editStatus()
                .addToCapacity("nvidia.com/gpu", new Quantity(String.valueOf(capacity)))
                .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(allocatable))).endStatus().build());
    }

    /** The GPU operator's CUDA validator pod is pinned to the node and asks for a GPU it can no longer get. */
    private void pendingValidator(String node) {
        String name = "nvidia-cuda-validator-" + FleetSeed.suffix("validator" + node + now(), 5);
        int nodes = devices.spec().nodeNames().size();
        String message = "0/" + nodes + " nodes are available: 1 Insufficient nvidia.com/gpu, " + (nodes - 1)
                + " node(s) didn't match Pod's node affinity/selector. preemption: 0/" + nodes + " nodes are available: "
                + "1 No preemption victims found for incoming pod, " + (nodes - 1)
                + " Preemption is not helpful for scheduling.";
        server.apply(new PodBuilder().withNewMetadata().withName(name).withNamespace(FleetSeed.GPU_OPERATOR)
                .withUid(FleetSeed.uid("pod/" + name)).addToLabels("app", "nvidia-cuda-validator").endMetadata()
                .withNewSpec().addToNodeSelector("kubernetes.io/hostname", node).withRestartPolicy("OnFailure")
                .addNewToleration().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule")
                .endToleration()
                .addNewContainer().withName("cuda-validation").withImage("nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.0")
                .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().endContainer()
                .endSpec()
                .withNewStatus().withPhase("Pending").withQosClass("BestEffort").addNewCondition().withType("PodScheduled")
                .withStatus("False").withReason("Unschedulable").withMessage(message).withLastTransitionTime(now())
                .endCondition().endStatus().build());
        event(FleetSeed.GPU_OPERATOR, "Pod", name, FleetSeed.uid("pod/" + name), null, "Warning", "FailedScheduling",
                message, "default-scheduler", null, 1);
    }

    private FiredAlert devicePluginAlert(String node) {
        Map<String, String> labels = labels("GpuDevicePluginUnavailable", "critical");
        labels.put("node", node);
        return rules.fire(labels, Map.of("capacity", "0", "count",
                String.valueOf(devices.devices(node).size())));
    }

    private void event(String ns, String kind, String name, String uid, String fieldPath, String type, String reason,
            String message, String component, String host, int count) {
        String now = now();
        String eventName = name + "." + Long.toHexString(clock.millis() * 1_000_000L + (long) (reason.hashCode() & 0xffff));
        server.apply(new EventBuilder().withNewMetadata().withName(eventName).withNamespace(ns).endMetadata()
                .withNewInvolvedObject().withApiVersion("v1").withKind(kind).withNamespace(ns).withName(name)
                .withUid(uid).withFieldPath(fieldPath).endInvolvedObject()
                .withType(type).withReason(reason).withMessage(message).withCount(count)
                .withFirstTimestamp(clock.instant().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString())
                .withLastTimestamp(now).withNewSource().withComponent(component).withHost(host).endSource()
                .withReportingComponent(component).withReportingInstance(host == null ? "" : host).build());
    }

    private String gpuNode(Fault fault, String kind) {
        String node = knownNode(fault, kind);
        if (!devices.hasDevices(node) || !devices.pool(node).nvidia()) {
            throw new IllegalArgumentException("node " + node + " has no NVIDIA GPUs; kind " + kind
                    + " needs one of the GPU nodes, e.g. " + gpuNodes().get(0));
        }
        return node;
    }

    private String knownNode(Fault fault, String kind) {
        if (fault.node() == null || fault.node().isBlank()) {
            throw new IllegalArgumentException("node is required for kind " + kind + ", e.g. \"" + gpuNodes().get(0)
                    + "\"; GET /api/v1/sandbox/nodes lists them");
        }
        if (!devices.spec().nodeNames().contains(fault.node())) {
            throw new IllegalArgumentException("node \"" + fault.node() + "\" does not exist; GET /api/v1/sandbox/nodes "
                    + "lists the nodes, e.g. " + gpuNodes().get(0));
        }
        return fault.node();
    }

    private int gpu(Fault fault, String node) {
        int gpu = fault.gpu() == null ? 0 : fault.gpu();
        int count = devices.devices(node).size();
        if (gpu < 0 || gpu >= count) {
            throw new IllegalArgumentException("gpu must be between 0 and " + (count - 1) + " on " + node + ", got "
                    + gpu);
        }
        return gpu;
    }

    private List<String> gpuNodes() {
        return devices.spec().pools().stream().filter(FleetSpec.Pool::nvidia).flatMap(p -> p.nodeNames().stream())
                .toList();
    }

    private List<String> gpuPods() {
        return client().pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> p.getStatus().getContainerStatuses().stream().anyMatch(c -> !gpuIds(c).isEmpty()))
                .filter(p -> devices.hasDevices(p.getSpec().getNodeName())
                        && devices.pool(p.getSpec().getNodeName()).nvidia())
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()).toList();
    }

    private String examplePod() {
        List<String> pods = gpuPods();
        return pods.isEmpty() ? "namespace/name" : pods.get(0);
    }

    private List<Pod> podsOn(String node) {
        return client().pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems();
    }

    static List<String> gpuIds(ContainerStatus c) {
        return Optional.ofNullable(c.getAllocatedResourcesStatus()).orElse(List.of()).stream()
                .filter(r -> r.getName().equals("nvidia.com/gpu") || r.getName().equals("google.com/tpu"))
                .flatMap(r -> r.getResources().stream()).map(ResourceHealth::getResourceID).toList();
    }

    private static boolean holds(Pod pod, String id) {
        return pod.getStatus().getContainerStatuses().stream().anyMatch(c -> gpuIds(c).contains(id));
    }

    private static PodCondition withStatus(PodCondition c, String status, String reason, String now) {
        c.setStatus(status);
        c.setReason(reason);
        c.setLastTransitionTime(now);
        return c;
    }

    private static Map<String, String> labels(String alertname, String severity) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("alertname", alertname);
        labels.put("severity", severity);
        return labels;
    }

    private KubernetesClient client() {
        return server.client();
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** The time of day as klog prints it in the device plugin's log lines. */
    private String time() {
        return KLOG_TIME.format(clock.instant());
    }

    private static final DateTimeFormatter KLOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);
}
