package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The other side of acceltriage's reset and repair handshakes, as a real cluster's agents would answer
 * them: a node agent that resets one GPU when its node is labelled {@code acceltriage.io/gpu-reset=N}
 * (refusing, as {@code nvidia-smi --gpu-reset} does, while the GPU operator's operands or a pod still
 * use the GPU, and for a fault a reset cannot clear), and a repairer that reboots a node labelled
 * {@code acceltriage.io/repair=requested} and then runs the health check that labels it. They act a
 * moment after the write, on their own thread, through the API like any controller.
 */
final class NodeRepairAgents implements AutoCloseable {

    static final String RESET = "acceltriage.io/gpu-reset";
    static final String RESET_STATE = "acceltriage.io/gpu-reset-state";
    static final String RESET_MESSAGE = "acceltriage.io/gpu-reset-message";
    static final String REPAIR = "acceltriage.io/repair";
    static final String REPAIR_MESSAGE = "acceltriage.io/repair-message";
    static final String HEALTH = "acceltriage.io/gpu-health";
    static final String DEPLOY = "nvidia.com/gpu.deploy.";
    static final String PROTOCOL = "acceltriage.io/repair-protocol";
    static final String ASKED = "acceltriage.io/repair-action";

    private final KubernetesClient client;
    private final DeviceState devices;
    private final XidEffects xids;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sandbox-node-agents");
        t.setDaemon(true);
        return t;
    });

    private final NodeProvisioners provisioners;

    NodeRepairAgents(KubernetesClient client, DeviceState devices, XidEffects xids, NodeProvisioners provisioners) {
        this.provisioners = provisioners;
        this.client = client;
        this.devices = devices;
        this.xids = xids;
    }

    void nodeWritten(String node) {
        if (!worker.isShutdown()) worker.execute(() -> answer(node));
    }

    private void answer(String name) {
        try {
            Node n = client.nodes().withName(name).get();
            if (n == null || !devices.hasDevices(name)) return;
            Map<String, String> labels = n.getMetadata().getLabels();
            if (labels.containsKey(RESET) && !labels.containsKey(RESET_STATE)) {
                reset(n, Integer.parseInt(labels.get(RESET)));
            }
            String protocol = n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get(PROTOCOL);
            // the handshake repairer answers its own protocol only: a node handed to Cluster API or Karpenter is theirs
            if ("requested".equals(labels.get(REPAIR)) && (protocol == null || "handshake".equals(protocol) || "medik8s".equals(protocol))) {
                if ("replace".equals(n.getMetadata().getAnnotations().get(ASKED))) {
                    provisioners.replace(name);
                } else {
                    repair(n);
                }
            }
        } catch (RuntimeException e) {
            // a node deleted or the server closing mid-answer: an agent on a dying node says nothing either
        }
    }

    private void reset(Node n, int index) {
        String node = n.getMetadata().getName();
        Optional<String> refusal = resetGpu(node, index);
        String bus = devices.device(node, index).pciBusId();
        client.nodes().withName(node).edit(x -> new NodeBuilder(x).editMetadata()
                .addToLabels(RESET_STATE, refusal.isEmpty() ? "succeeded" : "failed")
                .addToAnnotations(RESET_MESSAGE, refusal.orElse("GPU " + bus + " was successfully reset.")).endMetadata().build());
    }

    /**
     * {@code nvidia-smi --gpu-reset -i index} on the node, whoever runs it (the agent's handshake, a reset Job):
     * refused while the GPU operator's operands or a pod still use the GPU, and for a fault a reset cannot clear;
     * otherwise the GPU recovers and the device plugin advertises it again. Returns nvidia-smi's refusal, or empty.
     */
    Optional<String> resetGpu(String node, int index) {
        Node n = client.nodes().withName(node).get();
        DeviceState.Device gpu = devices.device(node, index);
        String bus = gpu.pciBusId();
        Optional<String> refusal = operandsRunning(n).map(o -> "Unable to reset GPU " + bus + " because it is being used by "
                + o + "; pause the GPU operator's operands first")
                .or(() -> holder(node, gpu.id()).map(p -> "Unable to reset GPU " + bus + " because it is in use by pod " + p))
                .or(() -> {
                    int xid = (int) gpu.get("DCGM_FI_DEV_XID_ERRORS");
                    return "reboot".equals(xids.of(xid).recovery())
                            ? Optional.of("Unable to reset GPU " + bus + ": XID " + xid + " (" + xids.of(xid).meaning()
                                    + ") needs a node reboot") : Optional.empty();
                });
        if (refusal.isEmpty()) {
            devices.recover(node, index);
            int count = devices.devices(node).size();
            client.nodes().withName(node).edit(x -> new NodeBuilder(x).editStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(count - devices.unhealthyCount(node)))).endStatus().build());
        }
        return refusal;
    }

    /** A reboot clears every GPU; then a DCGM diagnostic (level 2) runs and labels the node. */
    private void repair(Node n) {
        String node = n.getMetadata().getName();
        provisioners.reboot(node);
        int count = devices.devices(node).size();
        client.nodes().withName(node).edit(x -> new NodeBuilder(x).editMetadata().addToLabels(REPAIR, "complete")
                .addToAnnotations(REPAIR_MESSAGE, "rebooted").addToLabels(HEALTH, "passed")
                .addToAnnotations(HEALTH, "dcgmi diag -r 2: Pass (" + count + " GPUs)").endMetadata().build());
    }

    private static Optional<String> operandsRunning(Node n) {
        return n.getMetadata().getLabels().entrySet().stream()
                .filter(e -> e.getKey().startsWith(DEPLOY) && "true".equals(e.getValue()))
                .map(e -> e.getKey().substring(DEPLOY.length())).findFirst();
    }

    private Optional<String> holder(String node, String uuid) {
        List<Pod> pods = client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems();
        return pods.stream().filter(p -> node.equals(p.getSpec().getNodeName()))
                .filter(p -> p.getStatus().getContainerStatuses().stream().anyMatch(c -> FaultInjector.gpuIds(c).contains(uuid)))
                .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()).findFirst();
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
