package io.acceltriage.sandbox;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * The whole simulated GPU cluster without CDI: API server, seeded fleet, device state with its
 * exporters, and the fault injector. The {@link Sandbox} bean wraps one; plain tests start their own.
 */
public final class SimulatedCluster implements AutoCloseable {

    private final SimulatedApiServer server;
    private final DeviceState devices;
    private final ExporterText exporterText;
    private final FaultInjector faults;
    private final NodeRepairAgents agents;
    private final DiagnosticJobs jobs;
    private final SimulatedTrainer trainer;
    private final NodeProvisioners provisioners;
    private final AgentRollouts rollouts;

    private SimulatedCluster(SimulatedApiServer server, DeviceState devices, ExporterText exporterText,
            FaultInjector faults, NodeRepairAgents agents, DiagnosticJobs jobs, NodeProvisioners provisioners, AgentRollouts rollouts) {
        this.rollouts = rollouts;
        this.jobs = jobs;
        this.trainer = new SimulatedTrainer(server.client(), server.logs());
        this.provisioners = provisioners;
        this.server = server;
        this.devices = devices;
        this.exporterText = exporterText;
        this.faults = faults;
        this.agents = agents;
    }

    public static SimulatedCluster start() {
        return start(Clock.systemUTC());
    }

    static SimulatedCluster start(Clock clock) {
        // the seed writes to the object store directly, so it runs while the HTTP side starts
        SimulatedApiServer server = SimulatedApiServer.startInBackground();
        try {
            DeviceState devices = new DeviceState(FleetSpec.load());
            FleetSeed seed = new FleetSeed(server, devices);
            XidEffects xids = XidEffects.load();
            FaultInjector faults = new FaultInjector(server, devices, seed, xids, AlertRules.load(clock), clock);
            WorkloadControllers controllers = new WorkloadControllers(server.store(), devices,
                    server.dispatcher().budgets());
            server.dispatcher().onPodDeleted(controllers::podDeleted);
            seed.seed();
            NodeProvisioners provisioners = new NodeProvisioners(server.client(), devices, seed);
            server.dispatcher().onWritten(provisioners::written);
            NodeRepairAgents agents = new NodeRepairAgents(server.client(), devices, xids, provisioners);
            server.dispatcher().onNodeWritten(agents::nodeWritten);
            AgentRollouts rollouts = new AgentRollouts(server.client(), seed);
            DiagnosticJobs jobs = new DiagnosticJobs(server.client(), devices, server.logs(), agents, rollouts::brokenOn);
            server.dispatcher().onJobCreated(jobs::jobCreated);
            return new SimulatedCluster(server, devices, ExporterText.load(), faults, agents, jobs, provisioners, rollouts);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Seeds {@code nodes} more accelerator nodes and {@code pods} pods on them (see FleetSeed#scale): for measuring at scale. */
    public void seedAtScale(int nodes, int pods) {
        new FleetSeed(server, devices).scale(nodes, pods);
    }

    public KubernetesClient client() {
        return server.client();
    }

    public SimulatedApiServer apiServer() {
        return server;
    }

    public FaultInjector faults() {
        return faults;
    }

    public FiredAlert inject(Fault fault) {
        return faults.inject(fault);
    }

    public void reset() {
        rollouts.reset();
        faults.reset();
    }

    /**
     * Rolls {@code image} out to the GPU operator's DaemonSet {@code daemonSet} (a new ControllerRevision, one node a
     * second while its strategy is RollingUpdate); a {@code broken} revision fails the DCGM diagnostic where it runs.
     * Answers the new revision's hash and number.
     *
     * @throws IllegalArgumentException for a DaemonSet the GPU operator does not have, or the image it runs already
     */
    public Map<String, Object> rollOut(String daemonSet, String image, boolean broken) {
        AgentRollouts.Rollout r = rollouts.start(daemonSet, image, broken);
        return Map.of("daemonSet", FleetSeed.GPU_OPERATOR + "/" + r.daemonSet(), "revision", r.number(), "hash", r.hash(),
                "image", r.image(), "broken", r.broken(), "nodes", r.podsByNode().size());
    }

    /** The pretraining gang checkpoints every {@code every} from now on (annotation and log line); zero: never. */
    public void checkpointEvery(java.time.Duration every) {
        trainer.start(every);
    }

    /** The pretraining gang checkpoints now, if it runs whole; the checkpoint's time, null when it did not. */
    public java.time.Instant checkpointNow() {
        return trainer.checkpoint();
    }

    public boolean hasExporter(String node) {
        return devices.hasDevices(node);
    }

    /**
     * The node's exporter page (dcgm-exporter for NVIDIA nodes, Cloud TPU metrics for TPU nodes).
     *
     * @throws IllegalArgumentException for a node without accelerators or an unknown node
     * @throws ExporterUnavailableException when the exporter does not answer
     */
    public String exporterText(String node) {
        if (!devices.hasDevices(node)) {
            throw new IllegalArgumentException("node " + node + " has no accelerator exporter");
        }
        if (!devices.exporterUp(node)) {
            throw new ExporterUnavailableException("the exporter on " + node + " does not answer");
        }
        FleetSpec.Pool pool = devices.pool(node);
        Map<String, ExporterText.Holder> holders = holders(node);
        if (pool.tpu()) {
            return exporterText.tpu(pool.accelerator().product(), devices.devices(node), holders);
        }
        return exporterText.dcgm(node, devices.spec().cluster().nvidiaDriver(), devices.devices(node), holders);
    }

    /** Which pod container holds each device, read from the pods' allocatedResourcesStatus. */
    private Map<String, ExporterText.Holder> holders(String node) {
        Map<String, ExporterText.Holder> holders = new HashMap<>();
        for (Pod pod : client().pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems()) {
            for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
                for (String id : FaultInjector.gpuIds(c)) {
                    holders.put(id, new ExporterText.Holder(pod.getMetadata().getNamespace(),
                            pod.getMetadata().getName(), c.getName()));
                }
            }
        }
        return holders;
    }

    FleetSpec fleet() {
        return devices.spec();
    }

    @Override
    public void close() {
        trainer.close();
        rollouts.close();
        agents.close();
        jobs.close();
        provisioners.close();
        server.close();
    }
}
