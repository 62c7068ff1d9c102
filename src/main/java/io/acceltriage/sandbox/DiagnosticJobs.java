package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Job controller and the kubelet for DCGM diagnostic Jobs: a Job whose container runs
 * {@code dcgmi diag -r N} gets a pod on the Job's node that completes, its log the JSON
 * {@code dcgmi diag -j} would print for the node's simulated devices (DCGM 4's shape: a failing test
 * per GPU with an XID, a double-bit ECC error, or marked unhealthy by the device plugin), and the Job
 * is marked complete. Other Jobs are left alone, as the sandbox runs no workloads of its own.
 */
final class DiagnosticJobs implements AutoCloseable {

    private static final Pattern LEVEL = Pattern.compile("dcgmi\\s+diag\\s+(?:-r|--run)\\s+(\\d)");
    private static final Pattern RESET = Pattern.compile("nvidia-smi\\s+(?:--gpu-reset|-r)\\s+(?:-i|--id)\\s+(\\d{1,2})");

    private final KubernetesClient client;
    private final DeviceState devices;
    private final PodLogs logs;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sandbox-job-controller");
        t.setDaemon(true);
        return t;
    });

    private final NodeRepairAgents agents;
    /** DCGM's words when the node runs a broken node-agent revision (see {@link AgentRollouts}). */
    private final java.util.function.Function<String, Optional<String>> brokenAgent;

    DiagnosticJobs(KubernetesClient client, DeviceState devices, PodLogs logs, NodeRepairAgents agents,
            java.util.function.Function<String, Optional<String>> brokenAgent) {
        this.agents = agents;
        this.brokenAgent = brokenAgent;
        this.client = client;
        this.devices = devices;
        this.logs = logs;
    }

    void jobCreated(String namespace, String name) {
        if (!worker.isShutdown()) worker.execute(() -> run(namespace, name));
    }

    private void run(String namespace, String name) {
        try {
            Job job = client.batch().v1().jobs().inNamespace(namespace).withName(name).get();
            if (job == null || job.getSpec() == null || job.getSpec().getTemplate().getSpec() == null) return;
            var spec = job.getSpec().getTemplate().getSpec();
            String node = spec.getNodeName();
            if (node == null || !devices.hasDevices(node)) return;
            Container reset = spec.getContainers().stream().filter(c -> resetIndex(c) >= 0).findFirst().orElse(null);
            if (reset != null) {
                runReset(namespace, name, node, reset);
                return;
            }
            Container diag = spec.getContainers().stream().filter(c -> level(c) > 0).findFirst().orElse(null);
            if (diag == null) return;
            String pod = name + "-" + Long.toString(Math.abs((long) name.hashCode()) % 46_656, 36);
            client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(namespace)
                    .addToLabels("job-name", name).addToLabels("batch.kubernetes.io/job-name", name).endMetadata()
                    .withNewSpec().withNodeName(node).withRestartPolicy("Never").withContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                            .withName(diag.getName()).withImage(diag.getImage()).build()).endSpec()
                    .withNewStatus().withPhase("Succeeded").endStatus().build()).create();
            logs.put(namespace, pod, diag.getName(), false, diagnostic(node, level(diag)));
            client.batch().v1().jobs().inNamespace(namespace).withName(name).editStatus(j -> new JobBuilder(j).editOrNewStatus()
                    .withSucceeded(1).withActive(0).withCompletionTime(Instant.now().toString()).addNewCondition().withType("Complete")
                    .withStatus("True").endCondition().endStatus().build());
        } catch (RuntimeException e) {
            // a Job deleted mid-run or the server closing: a real kubelet would lose that pod too
        }
    }

    /**
     * A reset Job: the pod runs {@code nvidia-smi --gpu-reset -i N} on the node, as the node agent would (refused
     * while operands or a pod use the GPU, or for a fault only a reboot clears); the pod and the Job succeed or
     * fail with it, the log nvidia-smi's words.
     */
    private void runReset(String namespace, String name, String node, Container c) {
        int index = resetIndex(c);
        Optional<String> refusal = agents.resetGpu(node, index);
        String pod = name + "-" + Long.toString(Math.abs((long) name.hashCode()) % 46_656, 36);
        client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(pod).withNamespace(namespace)
                .addToLabels("job-name", name).addToLabels("batch.kubernetes.io/job-name", name).endMetadata()
                .withNewSpec().withNodeName(node).withRestartPolicy("Never").withContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                        .withName(c.getName()).withImage(c.getImage()).build()).endSpec()
                .withNewStatus().withPhase(refusal.isEmpty() ? "Succeeded" : "Failed").endStatus().build()).create();
        logs.put(namespace, pod, c.getName(), false, refusal.orElse("GPU " + devices.device(node, index).pciBusId()
                + " was successfully reset.") + "\n");
        client.batch().v1().jobs().inNamespace(namespace).withName(name).editStatus(j -> new JobBuilder(j).editOrNewStatus()
                .withSucceeded(refusal.isEmpty() ? 1 : 0).withFailed(refusal.isEmpty() ? 0 : 1).withActive(0)
                .addNewCondition().withType(refusal.isEmpty() ? "Complete" : "Failed").withStatus("True").endCondition().endStatus().build());
    }

    private static int resetIndex(Container c) {
        List<String> words = new ArrayList<>();
        if (c.getCommand() != null) words.addAll(c.getCommand());
        if (c.getArgs() != null) words.addAll(c.getArgs());
        Matcher m = RESET.matcher(String.join(" ", words));
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static int level(Container c) {
        List<String> words = new ArrayList<>();
        if (c.getCommand() != null) words.addAll(c.getCommand());
        if (c.getArgs() != null) words.addAll(c.getArgs());
        Matcher m = LEVEL.matcher(String.join(" ", words));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /**
     * What {@code dcgmi diag -r level -j} prints for the node (DCGM 4.x): the Deployment category, plus
     * Integration and Hardware from level 2 and Stress from level 3; a GPU with an XID or an uncorrectable
     * ECC error fails the memory test (the software test at level 1) in DCGM's words.
     */
    String diagnostic(String node, int level) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        ArrayNode categories = root.putObject("DCGM Diagnostic").putArray("test_categories");
        List<DeviceState.Device> gpus = devices.devices(node);
        String agent = brokenAgent.apply(node).orElse(null);
        category(categories, "Deployment", List.of("software"), gpus, level == 1 ? "software" : null, agent);
        if (level >= 2) {
            category(categories, "Integration", List.of("pcie"), gpus, null, null);
            category(categories, "Hardware", List.of("memory"), gpus, "memory", null);
        }
        if (level >= 3) category(categories, "Stress", List.of("targeted_stress", "targeted_power", "memory_bandwidth"), gpus, null, null);
        ObjectNode meta = root.putObject("metadata");
        meta.put("version", "4.2.3");
        meta.put("Driver Version Detected", "550.127.08");
        return root.toPrettyString() + "\n";
    }

    /** {@code agent}: what fails every GPU's tests of this category whatever the device (a broken node agent), or null. */
    private void category(ArrayNode into, String name, List<String> tests, List<DeviceState.Device> gpus, String failing, String agent) {
        ObjectNode c = into.addObject();
        c.put("category", name);
        ArrayNode list = c.putArray("tests");
        for (String t : tests) {
            ObjectNode test = list.addObject();
            test.put("name", t);
            ArrayNode results = test.putArray("results");
            boolean anyFail = false;
            for (DeviceState.Device d : gpus) {
                ObjectNode r = results.addObject();
                r.put("entity_group", "GPU");
                r.put("entity_group_id", 1);
                r.put("entity_id", d.index());
                String why = t.equals(failing) ? fault(d) : null;
                if (why == null) why = agent;
                r.put("status", why == null ? "Pass" : "Fail");
                if (why != null) {
                    anyFail = true;
                    ObjectNode w = r.putArray("warnings").addObject();
                    w.put("error_category", 6);
                    w.put("error_id", why.startsWith("Detected XID") ? 43 : 9);
                    w.put("error_severity", 2);
                    w.put("warning", why);
                }
            }
            test.putObject("test_summary").put("status", anyFail ? "Fail" : "Pass");
        }
    }

    /** DCGM's words for what is wrong with the device; null when nothing is. */
    private String fault(DeviceState.Device d) {
        long xid = (long) d.get("DCGM_FI_DEV_XID_ERRORS");
        if (xid != 0) return "Detected XID " + xid + " for GPU " + d.index();
        long dbe = (long) d.get("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL");
        if (dbe > 0) return "ecc_dbe_volatile_total: " + dbe + " double-bit ECC errors on GPU " + d.index();
        if (devices.isUnhealthy(d.id())) return "GPU " + d.index() + " is marked unhealthy by the device plugin";
        return null;
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
